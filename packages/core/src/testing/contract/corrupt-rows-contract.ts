import { describe, expect, it } from "vitest";
import { followLink } from "../../links/follow-link.js";
import { CorruptRowError } from "../../sql/corrupt-row-error.js";
import { manualClock } from "../../support/clock.js";
import { createIds } from "../../support/ids.js";
import { useHarness } from "./harness.js";
import type { StorageHarness } from "./raw.js";
import { seedDelivery, seedMessage, seedOrganization, seedWebhook } from "./seed.js";

/**
 * Overwrites `column` of the row of `table` whose `key` column (`id` unless told) is `id` with
 * the SQL literal `literal`, straight on the table, as a hand-made fix, an old bug or a
 * half-applied migration would.
 */
export type CorruptRow = (
  table: string,
  column: string,
  literal: string,
  id: string,
  key?: string | undefined,
) => Promise<void>;

/** `text` as an SQL string literal both databases read alike. */
const literalOf = (text: string): string => `'${text.replaceAll("'", "''")}'`;

/** A storage harness of a SQL adapter, able to write what no repository would. */
export interface CorruptibleHarness extends StorageHarness {
  corrupt: CorruptRow;
}

/** That the read rejects with a `CorruptRowError` naming `table`, `column` and `value`. */
async function expectCorrupt(
  read: Promise<unknown>,
  table: string,
  column: string,
  value: unknown,
): Promise<void> {
  const error = await read.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(CorruptRowError);
  expect(error).toMatchObject({ table, column, value });
  expect((error as Error).message).toContain(`${table}: column ${column} holds`);
}

/**
 * The SQL adapters' promise about rows no record can be made of: every read of one fails
 * loudly with an error naming the table, the column and the value, instead of handing a
 * mistyped record to the domain. Values are chosen that both databases' schemas accept.
 */
export function runCorruptRowContract(
  name: string,
  makeHarness: () => Promise<CorruptibleHarness>,
): void {
  describe(`corrupt rows: ${name}`, () => {
    const harness = useHarness(makeHarness);

    it("a message with an unknown status fails every read of it", async () => {
      const { storage, raw, corrupt } = harness();
      const org = await seedOrganization(storage);
      const { message } = await seedMessage(storage, org);
      await corrupt("messages", "status", "'lost-in-transit'", message.id);
      const organizationId = org.organization.id;
      await expectCorrupt(
        storage.messages.get(organizationId, message.id),
        "messages",
        "status",
        "lost-in-transit",
      );
      await expectCorrupt(
        storage.messages.getById(message.id),
        "messages",
        "status",
        "lost-in-transit",
      );
      await expectCorrupt(raw.message(message.id), "messages", "status", "lost-in-transit");
    });

    it("a campaign with an unknown category fails", async () => {
      const { storage, corrupt } = harness();
      const org = await seedOrganization(storage);
      await corrupt("campaigns", "category", "'spam'", org.campaign.id);
      await expectCorrupt(
        storage.campaigns.list(org.organization.id),
        "campaigns",
        "category",
        "spam",
      );
    });

    it("JSON of the wrong shape fails: topics, scopes, attributes, destinations", async () => {
      const { storage, corrupt } = harness();
      const org = await seedOrganization(storage);
      const organizationId = org.organization.id;

      const webhook = await seedWebhook(storage, org);
      await corrupt(
        "webhook_subscriptions",
        "topics",
        `'["message.sent", "message.lost"]'`,
        webhook.id,
      );
      await expectCorrupt(
        storage.webhooks.get(organizationId, webhook.id),
        "webhook_subscriptions",
        "topics",
        '["message.sent", "message.lost"]',
      );

      await corrupt("api_keys", "scopes", `'["root"]'`, org.apiKey.id);
      await expectCorrupt(storage.apiKeys.get(org.apiKey.id), "api_keys", "scopes", '["root"]');

      await corrupt("profiles", "attributes", `'{"plan": {"tier": 1}}'`, org.profile.id);
      await expectCorrupt(
        storage.profiles.get(organizationId, org.profile.id),
        "profiles",
        "attributes",
        '{"plan": {"tier": 1}}',
      );

      const delivery = await seedDelivery(storage, await seedOrganization(storage));
      await corrupt("deliveries", "destination", `'{"kind": "pigeon"}'`, delivery.id);
      await expectCorrupt(
        storage.deliveries.get(delivery.organizationId, delivery.id),
        "deliveries",
        "destination",
        '{"kind": "pigeon"}',
      );
    });

    it("a link to anything but an http(s) URL fails every read of it and is never followed", async () => {
      const { storage, raw, corrupt } = harness();
      const org = await seedOrganization(storage);
      const organizationId = org.organization.id;
      const { message } = await seedMessage(storage, org);
      const code = "Cr0rrUptL1nk";
      const stored = "https://shop.example/o/1";
      const link = { code, messageId: message.id, organizationId, createdAt: message.createdAt };
      await storage.links.insertMany([{ ...link, originalUrl: stored }]);
      const clock = manualClock(Date.parse(message.createdAt) + 60_000);
      const deps = { storage, clock, ids: createIds(clock) };
      const targets = [
        "javascript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "not a url at all",
        "//evil.example/",
        "https://shop.example/o/1\r\nSet-Cookie: session=stolen",
        "https://shop.example/o/1 https://evil.example/",
      ];
      for (const target of targets) {
        await corrupt("links", "original_url", literalOf(target), code, "code");
        const reads = [
          () => storage.links.get(code),
          () => storage.links.listForMessage(organizationId, message.id),
          () => storage.links.listForMessages(organizationId, [message.id]),
          () => storage.transaction((tx) => tx.links.recordClick(code, message.createdAt)),
          () => followLink(deps, code, true),
          () => followLink(deps, code, false),
        ];
        for (const read of reads) await expectCorrupt(read(), "links", "original_url", target);
      }
      // Nothing was counted or recorded on the way: put right, the link is as it was stored.
      await corrupt("links", "original_url", literalOf(stored), code, "code");
      expect(await storage.links.get(code)).toMatchObject({ originalUrl: stored, clicks: 0 });
      expect(await raw.message(message.id)).toMatchObject({ status: message.status });
    });

    it("one corrupt row fails a whole list rather than dropping out of it", async () => {
      const { storage, corrupt } = harness();
      const org = await seedOrganization(storage);
      const delivery = await seedDelivery(storage, org);
      await corrupt("deliveries", "topic", "'message.lost'", delivery.id);
      await expectCorrupt(
        storage.deliveries.listForMessage(org.organization.id, delivery.messageId ?? ""),
        "deliveries",
        "topic",
        "message.lost",
      );
    });
  });
}
