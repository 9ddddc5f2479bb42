import type { Issue } from "@tidings/core";

/** A form as posted: its fields, and the fields whose text cannot be stored. */
export interface FormBody {
  /** Every field; a value that is not text holds U+FFFD where its bytes were broken. */
  fields: URLSearchParams;
  /** One issue per field that held bytes that are no UTF-8, a lone surrogate or NUL. */
  issues: Issue[];
}

const EMPTY: FormBody = { fields: new URLSearchParams(), issues: [] };

const strict = new TextDecoder("utf-8", { fatal: true });
const lenient = new TextDecoder("utf-8");

/** A UTF-16 surrogate not paired with its other half (with `u`, a pair is one code point). */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

const NOT_TEXT =
  "must be text: it holds bytes that are no UTF-8 or a lone UTF-16 surrogate. Type it again.";
const NUL = "must not contain the NUL character (U+0000).";

const isHex = (byte: number | undefined) =>
  byte !== undefined &&
  ((byte >= 0x30 && byte <= 0x39) ||
    (byte >= 0x41 && byte <= 0x46) ||
    (byte >= 0x61 && byte <= 0x66));

/** WHATWG percent-decoding of one name or value, `+` as a space; a stray `%` stays itself. */
function percentDecode(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    if (byte === 0x25 && isHex(bytes[i + 1]) && isHex(bytes[i + 2])) {
      out[n++] = Number.parseInt(
        String.fromCharCode(bytes[i + 1] as number, bytes[i + 2] as number),
        16,
      );
      i += 2;
    } else {
      out[n++] = byte === 0x2b ? 0x20 : byte;
    }
  }
  return out.subarray(0, n);
}

/** Decodes one name or value; `text` is false when its bytes were no UTF-8. */
function decode(bytes: Uint8Array): { value: string; text: boolean } {
  const decoded = percentDecode(bytes);
  try {
    return { value: strict.decode(decoded), text: true };
  } catch {
    return { value: lenient.decode(decoded), text: false };
  }
}

/** Splits `bytes` at every `separator` byte. */
function split(bytes: Uint8Array, separator: number): Uint8Array[] {
  const parts: Uint8Array[] = [];
  let start = 0;
  for (let i = bytes.indexOf(separator); i !== -1; i = bytes.indexOf(separator, start)) {
    parts.push(bytes.subarray(start, i));
    start = i + 1;
  }
  parts.push(bytes.subarray(start));
  return parts;
}

/**
 * Parses an `application/x-www-form-urlencoded` body or query string as the WHATWG URL
 * standard does, except that a field whose bytes are no UTF-8 (how a lone surrogate arrives)
 * or that holds NUL is named in `issues` instead of being silently turned into U+FFFD: the REST
 * API refuses both with 400 naming the field, and a console form is shown again with the
 * problem beside it. A string (an embedder's server may hand one over) is read as UTF-8, and a
 * lone surrogate in it is refused the same way.
 */
export function parseFormBody(body: Uint8Array | string | undefined): FormBody {
  if (body === undefined || body.length === 0) return EMPTY;
  const fields = new URLSearchParams();
  const issues = new Map<string, string>();
  const pairs =
    typeof body === "string"
      ? body
          .split("&")
          .map((pair) => ({ bytes: Buffer.from(pair), lone: LONE_SURROGATE.test(pair) }))
      : split(body, 0x26).map((pair) => ({ bytes: pair, lone: false }));
  for (const pair of pairs) {
    if (pair.bytes.length === 0) continue;
    const eq = pair.bytes.indexOf(0x3d);
    const name = decode(eq === -1 ? pair.bytes : pair.bytes.subarray(0, eq));
    const value = decode(eq === -1 ? new Uint8Array() : pair.bytes.subarray(eq + 1));
    fields.append(name.value, value.value);
    if (issues.has(name.value)) continue;
    if (pair.lone || !name.text || !value.text) issues.set(name.value, NOT_TEXT);
    else if (value.value.includes("\0") || name.value.includes("\0")) issues.set(name.value, NUL);
  }
  return { fields, issues: [...issues].map(([path, message]) => ({ path, message })) };
}
