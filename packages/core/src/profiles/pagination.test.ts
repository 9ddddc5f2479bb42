import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Actor } from "../deps.js";
import { manualClock } from "../support/clock.js";
import { createIds } from "../support/ids.js";
import { repeatUntilDone } from "../testing/deadlines.js";
import { readableSecretBox } from "../testing/fakes.js";
import { memoryStorage } from "../testing/memory/index.js";
import { createProfile } from "./create-profile.js";
import { deleteProfile } from "./delete-profile.js";
import { listProfiles } from "./list-profiles.js";

const actor: Actor = { organizationId: "org_a", apiKeyId: null };

function setup() {
  const clock = manualClock();
  const deps = {
    storage: memoryStorage(),
    clock,
    ids: createIds(clock),
    secretBox: readableSecretBox,
  };
  let next = 0;
  const create = async () => {
    next += 1;
    const phone = `+1415555${String(1000 + next)}`;
    return (await createProfile(deps, actor, { phone_number: phone }))._unsafeUnwrap().public_id;
  };
  const page = async (limit: number, cursor: string | null) =>
    (
      await listProfiles(deps, actor, cursor === null ? { limit } : { limit, cursor })
    )._unsafeUnwrap();
  return { deps, create, page };
}

describe("cursor pagination (docs/api.md Conventions, docs/decisions.md Lists and cursors)", () => {
  it("for every limit from 1 to 100, walking the cursor visits every active profile once, oldest first", async () => {
    const { deps, create, page } = setup();
    const all: string[] = [];
    for (let i = 0; i < 130; i++) all.push(await create());
    for (const id of all.filter((_, i) => i % 7 === 3)) await deleteProfile(deps, actor, id);
    const active = all.filter((_, i) => i % 7 !== 3);
    for (let limit = 1; limit <= 100; limit++) {
      const seen: string[] = [];
      let cursor: string | null = null;
      // Every page but the last is full: more pages than profiles means the cursor is broken.
      await repeatUntilDone(`paging with limit ${limit}`, active.length + 1, async () => {
        const result = await page(limit, cursor);
        expect(result.data.length).toBeLessThanOrEqual(limit);
        expect(result.meta.has_more).toBe(result.meta.next_cursor !== null);
        seen.push(...result.data.map((profile) => profile.public_id));
        cursor = result.meta.next_cursor;
        return cursor === null;
      });
      expect(seen).toEqual(active);
    }
  });

  it("with creates and deletes interleaved with paging, no profile is seen twice, order is stable, and every profile active throughout is seen", async () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant("create" as const), count: fc.integer({ min: 1, max: 4 }) }),
      fc.record({ kind: fc.constant("delete" as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant("page" as const) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 100 }),
        fc.array(step, { maxLength: 60 }),
        async (initial, limit, steps) => {
          const { deps, create, page } = setup();
          const order: string[] = [];
          const active = new Set<string>();
          for (let i = 0; i < initial; i++) {
            const id = await create();
            order.push(id);
            active.add(id);
          }
          const activeThroughout = new Set(active);
          const seen: string[] = [];
          let cursor: string | null = null;
          let done = false;
          const fetchPage = async () => {
            const result = await page(limit, cursor);
            for (const profile of result.data) expect(active.has(profile.public_id)).toBe(true);
            seen.push(...result.data.map((profile) => profile.public_id));
            cursor = result.meta.next_cursor;
            done = cursor === null;
          };
          await fetchPage();
          for (const s of steps) {
            if (done) break;
            if (s.kind === "create") {
              for (let i = 0; i < s.count; i++) {
                const id = await create();
                order.push(id);
                active.add(id);
              }
            } else if (s.kind === "delete" && active.size > 0) {
              const victim = [...active][s.pick % active.size]!;
              await deleteProfile(deps, actor, victim);
              active.delete(victim);
              activeThroughout.delete(victim);
            } else if (s.kind === "page") {
              await fetchPage();
            }
          }
          await repeatUntilDone("paging to the end", order.length + 2, async () => {
            if (!done) await fetchPage();
            return done;
          });
          expect(new Set(seen).size).toBe(seen.length);
          const rank = new Map(order.map((id, i) => [id, i]));
          const ranks = seen.map((id) => rank.get(id)!);
          expect([...ranks].sort((a, b) => a - b)).toEqual(ranks);
          for (const id of activeThroughout) expect(seen).toContain(id);
        },
      ),
      { numRuns: 60 },
    );
  });
});
