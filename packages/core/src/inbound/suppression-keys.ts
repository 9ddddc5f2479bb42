import { createHmac, randomBytes } from "node:crypto";
import type { Deps } from "../deps.js";
import type { Repositories, SecretBox } from "../ports.js";
import { isoAt } from "../support/clock.js";

/**
 * Each organization's key of suppression hashes, once opened, per secret box: a key never
 * changes once stored, so the send path hashes with no round trip after the first.
 */
const opened = new WeakMap<SecretBox, Map<string, Buffer>>();

const cacheOf = (box: SecretBox): Map<string, Buffer> => {
  let cache = opened.get(box);
  if (cache === undefined) {
    cache = new Map();
    opened.set(box, cache);
  }
  return cache;
};

const openKey = (box: SecretBox, sealed: string): Buffer => Buffer.from(box.open(sealed), "base64");

/**
 * The organization's key, made and stored on first use. Call it outside any transaction (a
 * single-writer storage would wait on itself): a key written inside one that rolled back would
 * be remembered here but lost in storage.
 */
export async function suppressionKey(
  deps: Pick<Deps, "storage" | "secretBox" | "clock">,
  organizationId: string,
): Promise<Buffer> {
  const cache = cacheOf(deps.secretBox);
  const cached = cache.get(organizationId);
  if (cached !== undefined) return cached;
  let sealed = await deps.storage.suppressions.key(organizationId);
  if (sealed === null) {
    sealed = await deps.storage.suppressions.insertKey({
      organizationId,
      keySealed: deps.secretBox.seal(randomBytes(32).toString("base64")),
      createdAt: isoAt(deps.clock.now()),
    });
  }
  const key = openKey(deps.secretBox, sealed);
  cache.set(organizationId, key);
  return key;
}

/** The organization's key when it has one (it has no suppression otherwise); writes nothing. */
export async function existingSuppressionKey(
  repos: Pick<Repositories, "suppressions">,
  box: SecretBox,
  organizationId: string,
): Promise<Buffer | null> {
  const cache = cacheOf(box);
  const cached = cache.get(organizationId);
  if (cached !== undefined) return cached;
  const sealed = await repos.suppressions.key(organizationId);
  if (sealed === null) return null;
  const key = openKey(box, sealed);
  cache.set(organizationId, key);
  return key;
}

/** The keyed hash a suppression is stored under: HMAC-SHA-256 of the E.164 number, hex. */
export const phoneHash = (key: Buffer, phoneNumber: string): string =>
  createHmac("sha256", key).update(phoneNumber).digest("hex");

/**
 * Opens every organization's suppression key, so a server started with another secret key
 * refuses to run instead of silently forgetting every opt-out. Answers the organizations whose
 * key does not open (empty: all is well).
 */
export async function unopenableSuppressionKeys(
  deps: Pick<Deps, "storage" | "secretBox">,
): Promise<string[]> {
  const failed: string[] = [];
  for (const key of await deps.storage.suppressions.listKeys()) {
    try {
      cacheOf(deps.secretBox).set(key.organizationId, openKey(deps.secretBox, key.keySealed));
    } catch {
      failed.push(key.organizationId);
    }
  }
  return failed;
}
