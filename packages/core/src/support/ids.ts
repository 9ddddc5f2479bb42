import { randomBytes } from "node:crypto";
import type { Clock, IdPrefix, Ids } from "../ports.js";
import { systemClock } from "./clock.js";

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";

/**
 * UUID v7 and TypeID-style prefixed ids. Within one generator, ids are strictly increasing even
 * when many are made in the same millisecond (RFC 9562 method 1: a 12-bit counter in rand_a,
 * seeded randomly each millisecond, spilling into the timestamp when it overflows).
 */
export function createIds(clock: Clock = systemClock): Ids {
  let lastMs = -1;
  let counter = 0;

  const random = randomPool();
  const nextBytes = (): Uint8Array => {
    let ms = clock.now();
    if (ms <= lastMs) {
      ms = lastMs;
      counter += 1;
      if (counter > 0xfff) {
        ms += 1;
        counter = random.uint16() & 0x7ff;
      }
    } else {
      counter = random.uint16() & 0x7ff;
    }
    lastMs = ms;
    const bytes = random.bytes16();
    bytes.writeUIntBE(ms, 0, 6);
    bytes[6] = 0x70 | (counter >> 8);
    bytes[7] = counter & 0xff;
    bytes[8] = 0x80 | (bytes[8]! & 0x3f);
    return bytes;
  };

  return {
    uuidv7() {
      const hex = Buffer.from(nextBytes()).toString("hex");
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    },
    prefixed(prefix: IdPrefix) {
      return `${prefix}_${base32(nextBytes())}`;
    },
  };
}

/** 128 bits as 26 Crockford base32 characters (the first carries 3 bits), order-preserving. */
export function base32(bytes: Uint8Array): string {
  let out = "";
  // Character j (counted from the right) holds bits 5j to 5j + 4 of the big-endian number.
  for (let j = 25; j >= 0; j--) {
    const bit = j * 5;
    const index = 15 - (bit >> 3);
    const shift = bit & 7;
    let value = (bytes[index] ?? 0) >> shift;
    if (shift > 3 && index > 0) value |= (bytes[index - 1] ?? 0) << (8 - shift);
    out += CROCKFORD[value & 31];
  }
  return out;
}

const POOL_SIZE = 4096;

/**
 * Random bytes drawn from a pool filled 4 KiB at a time: one `randomBytes` call per id cost
 * more than the rest of making it.
 */
function randomPool() {
  let pool = randomBytes(POOL_SIZE);
  let offset = 0;
  const take = (size: number): Buffer => {
    if (offset + size > POOL_SIZE) {
      pool = randomBytes(POOL_SIZE);
      offset = 0;
    }
    const start = offset;
    offset += size;
    return pool.subarray(start, offset);
  };
  return {
    uint16: () => take(2).readUInt16BE(0),
    /** A fresh copy: the caller writes into it. */
    bytes16: () => Buffer.from(take(16)),
  };
}

const PREFIXED = /^(prf|cmp|whk|key|org|lst)_[0-7][0-9a-hjkmnp-tv-z]{25}$/;
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Whether `id` has the shape of a public id with this prefix (cheap pre-check before storage). */
export const isPrefixedId = (id: string, prefix: IdPrefix): boolean =>
  id.startsWith(`${prefix}_`) && PREFIXED.test(id);

/** Whether `id` is a lowercase UUID v7. */
export const isUuidV7 = (id: string): boolean => UUID_V7.test(id);
