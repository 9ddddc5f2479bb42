import { createHash } from "node:crypto";

/**
 * JSON with object keys sorted at every level, so two bodies that mean the same (key order,
 * whitespace) hash the same. `undefined` (no body) is `null`.
 */
export function canonicalJson(value: unknown): string {
  if (value === undefined || value === null) return "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * The hash of a request body: sha256 (hex) of its canonical JSON. The parsed body is hashed
 * rather than the raw bytes, so a client that re-serializes the same request with other key
 * order or spacing is replayed rather than refused.
 */
export const requestHash = (body: unknown): string =>
  createHash("sha256").update(canonicalJson(body)).digest("hex");
