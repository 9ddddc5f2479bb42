import { expect } from "vitest";
import type { RawReaders } from "../contract/raw.js";
import { IDEMPOTENCY_KEYS } from "./limit-operations.js";
import { normalizeSeqs } from "./operation.js";
import type { Model, Storages } from "./world.js";

/**
 * Beyond the answers, what is stored agrees too: every record the model knows, read through
 * each storage's raw readers (inactive, deleted and other organizations' rows included).
 */
export async function expectSameStoredState(model: Model, storages: Storages): Promise<void> {
  const reference = storages.reference.raw;
  const subject = storages.subject.raw;
  const same = async (label: string, read: (raw: RawReaders) => Promise<unknown>) => {
    const expected = normalizeSeqs(await read(reference), storages.sides.reference.seqs);
    const actual = normalizeSeqs(await read(subject), storages.sides.subject.seqs);
    expect(actual, `stored ${label}`).toEqual(expected);
  };

  for (const { id } of model.profiles) {
    await same(`profile ${id}`, (raw) => raw.profile(id));
    await same(`memberships of ${id}`, (raw) => raw.memberships(id));
    await same(`consent changes of ${id}`, (raw) => raw.consentChanges(id));
  }
  for (const id of model.ghosts) {
    expect(await subject.profile(id), `rolled-back profile ${id}`).toBeNull();
    expect(await subject.consentChanges(id), `rolled-back consent of ${id}`).toEqual([]);
  }
  for (const { id } of model.campaigns) await same(`campaign ${id}`, (raw) => raw.campaign(id));
  for (const { id } of model.apiKeys) await same(`API key ${id}`, (raw) => raw.apiKey(id));
  for (const { id } of model.webhooks) await same(`webhook ${id}`, (raw) => raw.webhook(id));
  for (const { id } of model.messages) {
    await same(`message ${id}`, (raw) => raw.message(id));
    await same(`events of ${id}`, (raw) => raw.events(id));
  }
  await same("deliveries", (raw) => raw.deliveries());
  for (const { id } of model.deliveries) await same(`attempts of ${id}`, (raw) => raw.attempts(id));
  for (const apiKeyId of IDEMPOTENCY_KEYS.apiKeyIds) {
    for (const endpoint of IDEMPOTENCY_KEYS.endpoints) {
      for (const key of IDEMPOTENCY_KEYS.keys) {
        await same(`idempotency ${apiKeyId} ${endpoint} ${key}`, (raw) =>
          raw.idempotency(apiKeyId, endpoint, key),
        );
      }
    }
  }
}

/** Each storage numbered the model's profiles in the order they were inserted. */
export function expectSeqsInInsertOrder(model: Model, storages: Storages): void {
  for (const side of [storages.sides.reference, storages.sides.subject]) {
    const seqs = model.profiles.map(({ id }) => side.seqs.get(id) ?? Number.NaN);
    const sorted = [...seqs].sort((a, b) => a - b);
    expect(seqs, `${side.name} seqs follow insertion order`).toEqual(sorted);
    expect(new Set(seqs).size, `${side.name} seqs are distinct`).toBe(seqs.length);
  }
}
