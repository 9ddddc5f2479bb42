import { describe, expect, it } from "vitest";
import type { Actor } from "../deps.js";
import type { ProfileSource, Repositories, Storage } from "../ports.js";
import { manualClock } from "../support/clock.js";
import { createIds } from "../support/ids.js";
import { readableSecretBox } from "../testing/fakes.js";
import { memoryStorage } from "../testing/memory/index.js";
import { getConsentHistory } from "./consent-history.js";
import { importProfiles } from "./import-profiles.js";
import { listProfiles } from "./list-profiles.js";

const actor: Actor = { organizationId: "org_a", apiKeyId: null };

function setup() {
  const clock = manualClock();
  const storage = memoryStorage();
  return {
    storage,
    clock,
    deps: { storage, clock, ids: createIds(clock), secretBox: readableSecretBox },
  };
}

const rows = (...data: unknown[]) => data.map((item, i) => ({ row: i + 2, data: item }));

/** The summary of importing `data` as rows 2, 3, … from `source`. */
const imported = async (
  deps: Parameters<typeof importProfiles>[0],
  source: ProfileSource,
  ...data: unknown[]
) => (await importProfiles(deps, actor, rows(...data), { source }))._unsafeUnwrap();

describe("importing profiles (CLI profiles import)", () => {
  it("creates valid rows with the import's source and reports every bad row with its number", async () => {
    const { deps } = setup();
    const summary = await imported(
      deps,
      "shopify",
      { phone_number: "+14155552671", first_name: "Ann", sms_marketing_consent: true },
      { phone_number: "nope" },
      { phone_number: "+14155552672", first_name: "J" },
      { phone_number: "+14155552673", email: "c@d.co" },
    );
    expect(summary).toMatchObject({ created: 2, updated: 0, unchanged: 0 });
    expect(summary.rejected.map((bad) => [bad.row, bad.issues[0]?.path])).toEqual([
      [3, "phone_number"],
      [4, "first_name"],
    ]);
    const page = (await listProfiles(deps, actor, {}))._unsafeUnwrap();
    expect(page.data.map((profile) => [profile.phone_number, profile.source])).toEqual([
      ["+14155552671", "shopify"],
      ["+14155552673", "shopify"],
    ]);
  });

  it("a re-run updates by phone number instead of duplicating, and records consent changes", async () => {
    const { deps, clock } = setup();
    await imported(deps, "import", { phone_number: "+14155552671", first_name: "Ann" });
    clock.advance(1000);
    const lee = (phone: string) =>
      imported(deps, "import", {
        phone_number: phone,
        last_name: "Lee",
        viber_marketing_consent: true,
      });
    expect(await lee("+1 415 555 2671")).toMatchObject({ created: 0, updated: 1, unchanged: 0 });
    // The same row again changes nothing.
    expect(await lee("+14155552671")).toMatchObject({ created: 0, updated: 0, unchanged: 1 });
    const [profile] = (await listProfiles(deps, actor, {}))._unsafeUnwrap().data;
    expect(profile).toMatchObject({
      first_name: "Ann",
      last_name: "Lee",
      viber_marketing_consent: true,
    });
    expect((await getConsentHistory(deps, actor, profile!.public_id))._unsafeUnwrap()).toHaveLength(
      1,
    );
  });

  it("refuses a phone number repeated within one import, naming both lines", async () => {
    const { deps } = setup();
    const summary = await imported(
      deps,
      "import",
      { phone_number: "+14155552671", first_name: "Ann" },
      { phone_number: "+14155552672" },
      { phone_number: "+1 (415) 555-2671", first_name: "Bea" },
    );
    expect(summary).toMatchObject({ created: 2, updated: 0, unchanged: 0 });
    expect(summary.rejected).toEqual([
      {
        row: 4,
        issues: [
          {
            path: "phone_number",
            message:
              "+14155552671 is also on line 2; each phone number may appear once in an import.",
            rule: "duplicate_in_import",
          },
        ],
      },
    ]);
    const [first] = (await listProfiles(deps, actor, {}))._unsafeUnwrap().data;
    expect(first).toMatchObject({ first_name: "Ann" });
  });

  it("an import that fails midway leaves nothing half-imported", async () => {
    const { deps, storage } = setup();
    // The first row's profile is written, then recording its consent fails: the whole import rolls back.
    storage.failNext("consent.insert");
    const result = importProfiles(
      deps,
      actor,
      rows(
        { phone_number: "+14155552671", sms_marketing_consent: true },
        { phone_number: "+14155552672" },
      ),
      { source: "import" },
    );
    await expect(result).rejects.toThrow();
    expect((await listProfiles(deps, actor, {}))._unsafeUnwrap().data).toEqual([]);
  });
  it("a row whose number another writer created after its lookup updates that profile", async () => {
    const { deps, storage } = setup();
    await imported(deps, "import", { phone_number: "+14155552671", first_name: "Ann" });
    // The lookup misses the profile, as one that missed another writer's uncommitted insert
    // would; the import's insert then finds the number taken, once that writer committed.
    let missed = false;
    const missingOnce = (tx: Repositories): Repositories => ({
      ...tx,
      profiles: {
        ...tx.profiles,
        findByPhone: async (organizationId, phoneNumber) => {
          if (missed) return tx.profiles.findByPhone(organizationId, phoneNumber);
          missed = true;
          return null;
        },
      },
    });
    const racing: Storage = {
      ...storage,
      transaction: (fn) => storage.transaction((tx) => fn(missingOnce(tx))),
    };
    const summary = await imported({ ...deps, storage: racing }, "import", {
      phone_number: "+14155552671",
      first_name: "Bea",
    });
    expect(missed).toBe(true);
    expect(summary).toMatchObject({ created: 0, updated: 1, unchanged: 0, rejected: [] });
    const page = (await listProfiles(deps, actor, {}))._unsafeUnwrap();
    expect(page.data.map((profile) => profile.first_name)).toEqual(["Bea"]);
  });

  /** `storage` whose profile inserts find the number taken `times` times, writing nothing. */
  const takenBy = (storage: Storage, times: number): Storage => {
    let refused = 0;
    const taking = (tx: Repositories): Repositories => ({
      ...tx,
      profiles: {
        ...tx.profiles,
        insert: async (profile) => {
          if (refused >= times) return tx.profiles.insert(profile);
          refused += 1;
          return "phone_number_taken";
        },
      },
    });
    return { ...storage, transaction: (fn) => storage.transaction((tx) => fn(taking(tx))) };
  };

  it("a row whose number another writer created and removed again before its second lookup tries again", async () => {
    const { deps, storage } = setup();
    const summary = await imported({ ...deps, storage: takenBy(storage, 2) }, "import", {
      phone_number: "+14155552671",
      first_name: "Ann",
    });
    expect(summary).toMatchObject({ created: 1, updated: 0, unchanged: 0, rejected: [] });
    const page = (await listProfiles(deps, actor, {}))._unsafeUnwrap();
    expect(page.data.map((profile) => profile.first_name)).toEqual(["Ann"]);
  });

  it("past three tries the import fails whole, saying why, and nothing is imported", async () => {
    const { deps, storage } = setup();
    const attempt = importProfiles(
      { ...deps, storage: takenBy(storage, 3) },
      actor,
      rows({ phone_number: "+14155550100" }, { phone_number: "+14155552671" }),
      { source: "import" },
    );
    await expect(attempt).rejects.toThrow(
      /\+14155550100 was created and removed by other writers 3 times while this import ran; nothing was imported, run it again/,
    );
    expect((await listProfiles(deps, actor, {}))._unsafeUnwrap().data).toEqual([]);
  });
});
