import type { Result, ResultAsync } from "neverthrow";
import { describe, expect, it } from "vitest";
import type { Actor } from "../../deps.js";
import type { DomainError } from "../../errors.js";
import type {
  Repositories,
  SecretBox,
  Storage,
  UrlPolicy,
  WebhookSubscriptionChanges,
  WebhookSubscriptionRecord,
  WebhookSubscriptionRepository,
} from "../../ports.js";
import { manualClock } from "../../support/clock.js";
import { createIds } from "../../support/ids.js";
import { createWebhook, deleteWebhook, rotateWebhookSecret } from "../../webhooks/subscriptions.js";
import { updateWebhook } from "../../webhooks/update-webhook.js";
import { gate, settledOrAfter } from "./gates.js";
import type { StorageHarness } from "./raw.js";
import { anOrganizationIn } from "./seed.js";

const secretBox: SecretBox = {
  seal: (plaintext) => `sealed:${plaintext}`,
  open: (sealed) => sealed.slice("sealed:".length),
};
const anyUrl: UrlPolicy = { check: async () => ({ allowed: true }) };

/** A use case's answer as a plain promise, as `settledOrAfter` takes it. */
const begin = <T>(work: ResultAsync<T, DomainError>): PromiseLike<Result<T, DomainError>> =>
  work.then((result) => result);

/** Long enough for a racer that no lock holds back to finish first. */
const RUN_AHEAD_MS = 150;

/**
 * `storage`, except that inside a transaction the first `webhooks.update` whose changes match
 * `when` waits for `release()`, the transaction still open; `reached` resolves once it waits.
 */
function holdingUpdate(storage: Storage, when: (changes: WebhookSubscriptionChanges) => boolean) {
  const reached = gate();
  const released = gate();
  let armed = true;
  const hold = (webhooks: WebhookSubscriptionRepository): WebhookSubscriptionRepository => {
    const update: WebhookSubscriptionRepository["update"] = async (organizationId, id, changes) => {
      if (armed && when(changes)) {
        armed = false;
        reached.open();
        await released.promise;
      }
      return webhooks.update(organizationId, id, changes);
    };
    return new Proxy(webhooks, {
      get: (target, name, receiver) =>
        name === "update" ? update : Reflect.get(target, name, receiver),
    });
  };
  const transaction: Storage["transaction"] = (fn) =>
    storage.transaction((tx) =>
      fn(
        new Proxy(tx, {
          get: (target: Repositories, name, receiver) =>
            name === "webhooks" ? hold(target.webhooks) : Reflect.get(target, name, receiver),
        }),
      ),
    );
  const held = new Proxy(storage, {
    get: (target, name, receiver) =>
      name === "transaction" ? transaction : Reflect.get(target, name, receiver),
  });
  return { storage: held, reached: reached.promise, release: () => released.open() };
}

/** Topics subscribed by more than one active subscription, with who holds them. */
function overlaps(subscriptions: readonly WebhookSubscriptionRecord[]): string[] {
  const holders = new Map<string, string[]>();
  for (const s of subscriptions.filter((w) => w.status === "active")) {
    for (const topic of s.topics) holders.set(topic, [...(holders.get(topic) ?? []), s.id]);
  }
  return [...holders].filter(([, ids]) => ids.length > 1).map(([t, ids]) => `${t}: ${ids}`);
}

/**
 * The subscription use cases over the adapter's storage, with operations interleaved at chosen
 * points: every read-modify-write of a subscription runs under `lockOrganization` with its read
 * after the lock, and writes only what it changes, so none undoes another.
 */
export function webhookChangesContract(harness: () => StorageHarness): void {
  const world = async () => {
    const { storage, raw } = harness();
    const actor: Actor = { organizationId: await anOrganizationIn(storage), apiKeyId: null };
    const clock = manualClock();
    const ids = createIds();
    const deps = (over: Storage = storage) => ({
      storage: over,
      clock,
      ids,
      secretBox,
      urlPolicy: anyUrl,
    });
    const subscribe = async (url: string) =>
      (await createWebhook(deps(), actor, { url, topics: ["message.sent"] }))._unsafeUnwrap();
    return { storage, raw, actor, clock, deps, subscribe };
  };

  describe("webhook subscription changes interleaved (use cases over this storage)", () => {
    it("a rotation held after its read, then a deactivation and a create on its topic: never two active on one topic", async () => {
      const w = await world();
      const a = await w.subscribe("https://a.example.com/in");
      const held = holdingUpdate(w.storage, (changes) => changes.secretSealed !== undefined);
      const rotation = rotateWebhookSecret(w.deps(held.storage), w.actor, a.webhook_id);
      await held.reached;
      // Deactivate A, then subscribe B to A's topic: without the lock both would commit now,
      // and the rotation would then write A back as active.
      const racers = (async () => {
        const deactivated = await updateWebhook(w.deps(), w.actor, a.webhook_id, {
          status: "inactive",
        });
        const b = await createWebhook(w.deps(), w.actor, {
          url: "https://b.example.com/in",
          topics: ["message.sent"],
        });
        return { deactivated, b };
      })();
      await settledOrAfter(racers, RUN_AHEAD_MS);
      held.release();
      const rotated = (await rotation)._unsafeUnwrap();
      const { deactivated, b } = await racers;
      expect(deactivated.isOk()).toBe(true);
      expect(b.isOk()).toBe(true);

      const stored = await w.storage.webhooks.list(w.actor.organizationId);
      expect(overlaps(stored)).toEqual([]);
      expect(await w.raw.webhook(a.webhook_id)).toMatchObject({
        status: "inactive",
        secretSealed: secretBox.seal(rotated.signing_secret),
      });
      expect(stored.filter((s) => s.status === "active").map((s) => s.id)).toEqual([
        b._unsafeUnwrap().webhook_id,
      ]);
    });

    it("a PATCH held after its read, then a rotation: the PATCH's change and the new secret both stay", async () => {
      const w = await world();
      const a = await w.subscribe("https://a.example.com/in");
      const held = holdingUpdate(w.storage, (changes) => changes.description !== undefined);
      const patch = updateWebhook(w.deps(held.storage), w.actor, a.webhook_id, {
        url: "https://a.example.com/v2",
        description: "moved",
      });
      await held.reached;
      const rotation = begin(rotateWebhookSecret(w.deps(), w.actor, a.webhook_id));
      await settledOrAfter(rotation, RUN_AHEAD_MS);
      held.release();
      expect((await patch).isOk()).toBe(true);
      const rotated = (await rotation)._unsafeUnwrap();
      // The rotation ran after the PATCH: it answers the PATCH's fields with its new secret.
      expect(rotated).toMatchObject({ url: "https://a.example.com/v2", description: "moved" });
      expect(await w.raw.webhook(a.webhook_id)).toMatchObject({
        url: "https://a.example.com/v2",
        description: "moved",
        status: "active",
        secretSealed: secretBox.seal(rotated.signing_secret),
      });
    });

    it("two rotations run one after the other: the secret of the one that waited is stored", async () => {
      const w = await world();
      const a = await w.subscribe("https://a.example.com/in");
      const held = holdingUpdate(w.storage, (changes) => changes.secretSealed !== undefined);
      const first = rotateWebhookSecret(w.deps(held.storage), w.actor, a.webhook_id);
      await held.reached;
      const second = begin(rotateWebhookSecret(w.deps(), w.actor, a.webhook_id));
      await settledOrAfter(second, RUN_AHEAD_MS);
      held.release();
      const firstSecret = (await first)._unsafeUnwrap().signing_secret;
      const secondSecret = (await second)._unsafeUnwrap().signing_secret;
      expect(secondSecret).not.toBe(firstSecret);
      expect((await w.raw.webhook(a.webhook_id))?.secretSealed).toBe(secretBox.seal(secondSecret));
    });

    it("a rotation held after its read keeps a deletion waiting; the deletion then removes it", async () => {
      const w = await world();
      const a = await w.subscribe("https://a.example.com/in");
      const held = holdingUpdate(w.storage, (changes) => changes.secretSealed !== undefined);
      const rotation = rotateWebhookSecret(w.deps(held.storage), w.actor, a.webhook_id);
      await held.reached;
      const deletion = begin(deleteWebhook(w.deps(), w.actor, a.webhook_id));
      await settledOrAfter(deletion, RUN_AHEAD_MS);
      held.release();
      expect((await rotation).isOk()).toBe(true);
      expect((await deletion).isOk()).toBe(true);
      expect(await w.raw.webhook(a.webhook_id)).toBeNull();
    });
  });
}
