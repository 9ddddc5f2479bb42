import fc from "fast-check";
import type { StorageHarness } from "../contract/raw.js";
import { memoryStorage } from "../memory/memory-storage.js";
import type { Operation } from "./operation.js";
import { expectSameStoredState, expectSeqsInInsertOrder } from "./stored-state.js";
import type { Storages } from "./world.js";
import { emptyModel } from "./world.js";

/** How much randomness one property gets. */
export interface StorageModelOptions {
  /** Random sequences per property (default 25). */
  numRuns?: number | undefined;
  /** Operations per sequence at most (default 40). */
  maxCommands?: number | undefined;
  /** Replays a failure reported by fast-check. */
  seed?: number | undefined;
  path?: string | undefined;
}

/**
 * Runs random sequences of `operations` on a fresh in-memory reference and a fresh harness,
 * comparing every answer, then what both have stored. Rejects with the shrunk counterexample.
 */
export async function checkAgainstReference(
  makeHarness: () => Promise<StorageHarness>,
  operations: Array<fc.Arbitrary<Operation>>,
  options: StorageModelOptions = {},
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(
      fc.commands(operations, { maxCommands: options.maxCommands ?? 40, size: "large" }),
      async (commands) => {
        const reference = memoryStorage();
        const subject = await makeHarness();
        const storages: Storages = {
          reference,
          subject,
          sides: {
            reference: { name: "reference", repos: reference, seqs: new Map() },
            subject: { name: "subject", repos: subject.storage, seqs: new Map() },
          },
        };
        const model = emptyModel();
        try {
          await fc.asyncModelRun(() => ({ model, real: storages }), commands);
          await expectSameStoredState(model, storages);
          expectSeqsInInsertOrder(model, storages);
        } finally {
          await subject.dispose();
          await reference.close();
        }
      },
    ),
    {
      numRuns: options.numRuns ?? 25,
      ...(options.seed === undefined ? {} : { seed: options.seed }),
      ...(options.path === undefined ? {} : { path: options.path }),
    },
  );
}
