// What both straightforward servers (peer-server-main.ts on SQLite, pg-peer-server-main.ts on
// PostgreSQL) share: the request bodies they accept, how they read and answer them, the phone
// number check and the key hash. Only the storage differs between them.
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import * as v from "valibot";

export const ProfileBody = v.strictObject({
  phone_number: v.string(),
  first_name: v.optional(v.pipe(v.string(), v.trim(), v.minLength(2), v.maxLength(100))),
  last_name: v.optional(v.pipe(v.string(), v.trim(), v.minLength(2), v.maxLength(100))),
  email: v.optional(v.pipe(v.string(), v.email())),
});

export const SendBody = v.strictObject({
  campaign_id: v.string(),
  recipient: v.strictObject({ type: v.literal("phone_number"), value: v.string() }),
  params: v.record(v.string(), v.union([v.string(), v.number()])),
  client_reference: v.optional(v.pipe(v.string(), v.maxLength(255))),
});

export const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

export const json = (res: ServerResponse, status: number, body: unknown): void => {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": status >= 400 ? "application/problem+json" : "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
};

export const problem = (res: ServerResponse, status: number, code: string): void =>
  json(res, status, { type: "about:blank", title: code, status, code });

/** The number in E.164, or `null` when it is not a valid one. */
export const e164 = (text: string): string | null => {
  const phone = parsePhoneNumberFromString(text);
  return phone?.isValid() ? phone.number : null;
};

/** The request's JSON body, `undefined` when it is not JSON. */
export const readBody = (req: IncomingMessage): Promise<unknown> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch {
        resolve(undefined);
      }
    });
  });

/** A campaign's template with `{{name}}` filled from the send's parameters. */
export const render = (template: string, params: Record<string, string | number>): string =>
  template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(params[name] ?? ""));
