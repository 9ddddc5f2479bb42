import fc from "fast-check";
import { expect } from "vitest";
import type { Repositories } from "../../ports.js";
import { ORGS, pick } from "./values.js";
import type { Model, Side, Storages } from "./world.js";

/** How one operation runs on one storage; `side` maps cursors and holds the repositories. */
export type Act = (side: Side) => Promise<unknown>;

/** What an operation's answer was on one storage: a value, or that it rejected. */
type Outcome = { value: unknown } | { rejected: true };

/**
 * Replaces each profile's `seq` (anywhere in `value`) by the profile it was first answered for,
 * so two storages agree when their seqs differ in number but not in meaning. The first time a
 * storage answers a profile (its insert) records that seq.
 */
export function normalizeSeqs(value: unknown, seqs: Map<string, number>): unknown {
  if (Array.isArray(value)) return value.map((item) => normalizeSeqs(item, seqs));
  if (value === null || typeof value !== "object") return value;
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(record)) out[key] = normalizeSeqs(field, seqs);
  const { id, seq } = record;
  if (typeof id === "string" && id.startsWith("prf_") && typeof seq === "number") {
    const known = seqs.get(id);
    if (known === undefined) seqs.set(id, seq);
    out.seq = known === undefined || known === seq ? `seq of ${id}` : `changed seq ${seq}`;
  }
  return out;
}

async function outcomeOf(act: Act, side: Side): Promise<Outcome> {
  try {
    return { value: normalizeSeqs(await act(side), side.seqs) };
  } catch {
    return { rejected: true };
  }
}

/**
 * One random operation: its arguments are fixed when it is generated (or prepared from the
 * model), then it runs on the reference and on the subject, and both answers must be equal.
 */
export class Operation implements fc.AsyncCommand<Model, Storages> {
  constructor(
    private readonly label: string,
    private readonly needs: (model: Readonly<Model>) => boolean,
    private readonly prepare: (model: Model, storages: Storages) => Promise<Act> | Act,
    private readonly remember: (model: Model, answer: unknown) => void = () => {},
  ) {}

  check(model: Readonly<Model>): boolean {
    return this.needs(model);
  }

  async run(model: Model, storages: Storages): Promise<void> {
    const act = await this.prepare(model, storages);
    const expected = await outcomeOf(act, storages.sides.reference);
    const actual = await outcomeOf(act, storages.sides.subject);
    expect(actual, this.label).toEqual(expected);
    if ("value" in expected) this.remember(model, expected.value);
  }

  toString(): string {
    return this.label;
  }
}

/** An operation with no precondition. */
export const always = (): boolean => true;

/** A precondition: the model holds at least one record of `kind`. */
export const has =
  (kind: keyof Model) =>
  (model: Readonly<Model>): boolean =>
    model[kind].length > 0;

/**
 * Reads of one remembered record of `kind`, asked as either organization (its own, or one that
 * must find nothing); `reads` makes them one after the other on one storage.
 */
export const readsOf = (
  kind: Exclude<keyof Model, "ghosts">,
  reads: (repos: Repositories, organizationId: string, id: string) => Promise<unknown[]>,
) =>
  fc.record({ n: fc.nat(), org: fc.nat(1) }).map(
    ({ n, org }) =>
      new Operation(`${kind} reads(#${n}, org ${org})`, has(kind), (model) => {
        const { id } = pick(model[kind], n);
        const organizationId = pick(ORGS, org);
        return (side) => reads(side.repos, organizationId, id);
      }),
  );
