import { expect } from "vitest";
import { at } from "./fixtures.js";
import type { StorageHarness } from "./raw.js";
import { twoOrganizations } from "./seed.js";

type Storage = StorageHarness["storage"];

/** The repositories whose `list(organizationId)` answers all of an organization's records. */
type Listing = "campaigns" | "apiKeys" | "webhooks" | "contactLists";

/**
 * The case every repository's `list(organizationId)` passes: it answers the organization's
 * records oldest first (the later one is stored first, so the order is by creation time, not
 * by insertion) and none of another organization's.
 */
export async function expectOrganizationListOldestFirst<K extends Listing>(
  harness: () => StorageHarness,
  repository: K,
  make: (organizationId: string, createdAt: string) => Parameters<Storage[K]["insert"]>[0],
): Promise<void> {
  const { storage, orgA, orgB } = await twoOrganizations(harness);
  // Each of these repositories takes the record it lists; TypeScript cannot follow `K` into it.
  const records = storage[repository] as unknown as {
    insert(record: unknown): Promise<unknown>;
    list(organizationId: string): Promise<unknown[]>;
  };
  const later = make(orgA, at(2));
  const earlier = make(orgA, at(1));
  await records.insert(later);
  await records.insert(earlier);
  await records.insert(make(orgB, at(1)));
  expect(await records.list(orgA)).toEqual([earlier, later]);
}
