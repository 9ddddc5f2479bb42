import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { err, ok, type Result } from "neverthrow";
import type { SecretBox } from "../ports.js";

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = "v1";
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * The default `SecretBox`: AES-256-GCM with a random 12-byte IV per seal, written as
 * `v1.<iv>.<ciphertext>.<tag>` (base64url parts), so the version prefix lets a later format or
 * key rotation tell sealed texts apart.
 */
export function aesGcmSecretBox(key: Uint8Array): SecretBox {
  if (key.length !== KEY_BYTES) {
    throw new Error(`The secret key must be ${KEY_BYTES} bytes; got ${key.length}.`);
  }
  const keyBytes = Buffer.from(key);
  return {
    seal(plaintext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", keyBytes, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [VERSION, iv, ciphertext, tag].map(encodePart).join(".");
    },
    open(sealed) {
      const parts = sealed.split(".");
      const [version, iv, ciphertext, tag] = parts;
      if (
        parts.length !== 4 ||
        version !== VERSION ||
        iv === undefined ||
        ciphertext === undefined ||
        tag === undefined ||
        !parts.every((part) => BASE64URL.test(part))
      ) {
        throw new Error("The sealed secret is not in the v1.<iv>.<ciphertext>.<tag> format.");
      }
      const ivBytes = Buffer.from(iv, "base64url");
      const tagBytes = Buffer.from(tag, "base64url");
      if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) {
        throw new Error("The sealed secret has an IV or tag of the wrong length.");
      }
      try {
        const decipher = createDecipheriv("aes-256-gcm", keyBytes, ivBytes, {
          authTagLength: TAG_BYTES,
        });
        decipher.setAuthTag(tagBytes);
        const ciphertextBytes = Buffer.from(ciphertext, "base64url");
        return Buffer.concat([decipher.update(ciphertextBytes), decipher.final()]).toString("utf8");
      } catch {
        throw new Error(
          "The sealed secret could not be opened: it was tampered with or sealed under another key.",
        );
      }
    },
  };
}

const encodePart = (part: string | Buffer): string =>
  typeof part === "string" ? part : part.toString("base64url");

const HEX_KEY = /^[0-9a-fA-F]{64}$/;
const BASE64_KEY = /^[A-Za-z0-9+/]{43}=?$/;
const BASE64URL_KEY = /^[A-Za-z0-9_-]{43}=?$/;

/**
 * Reads `TIDINGS_SECRET_KEY`: 32 bytes as base64, base64url or 64 hex characters. The message
 * completes a sentence that starts with the variable's name and never repeats the key.
 */
export function parseSecretKey(text: string): Result<Buffer, string> {
  const trimmed = text.trim();
  // Hex first: 64 hex characters are also valid base64 (of 48 bytes).
  if (HEX_KEY.test(trimmed)) return ok(Buffer.from(trimmed, "hex"));
  const encoding = BASE64_KEY.test(trimmed)
    ? "base64"
    : BASE64URL_KEY.test(trimmed)
      ? "base64url"
      : null;
  if (encoding !== null) {
    const key = Buffer.from(trimmed, encoding);
    // Round-tripping refuses non-canonical text whose last character carries stray bits.
    if (
      key.length === KEY_BYTES &&
      key.toString(encoding).replace(/=+$/, "") === unpadded(trimmed)
    ) {
      return ok(key);
    }
  }
  return err(
    `must be ${KEY_BYTES} bytes written as base64 (44 characters) or as 64 hex characters; the value given (${trimmed.length} characters) is neither. Generate one with: openssl rand -base64 32`,
  );
}

const unpadded = (text: string): string => text.replace(/=+$/, "");

/** A fresh random key for `TIDINGS_SECRET_KEY`, as base64. */
export function generateSecretKey(): string {
  return randomBytes(KEY_BYTES).toString("base64");
}
