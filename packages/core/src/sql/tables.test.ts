import { describe, expect, it } from "vitest";
import type { SqlCodec } from "./codec.js";
import { newestFirstPages } from "./newest-first.js";
import { insertStatement, jsonRow, rowValues, setClause, sqlTables } from "./tables.js";

// Numbered placeholders with JSON casts and native booleans, as PostgreSQL writes them.
const numbered: SqlCodec = {
  readFlag: (value) => (typeof value === "boolean" ? value : undefined),
  readInteger: (value) => (typeof value === "number" ? value : undefined),
  writeFlag: (value) => value,
  placeholder: (position, json) => `$${position}${json === true ? "::json" : ""}`,
  selectJson: (column, alias) => `${alias}${column}::text AS ${column}`,
};

// Anonymous placeholders and flags as text, unlike either database, so nothing is assumed.
const anonymous: SqlCodec = {
  ...numbered,
  writeFlag: (v) => (v ? "t" : "f"),
  placeholder: () => "?",
};

const campaign = {
  id: "cmp_1",
  organizationId: "org_1",
  name: "Welcome",
  channel: "viber",
  smsFallback: true,
  category: "transactional",
  sender: "Shop",
  template: "Hi",
  ttlSeconds: 60,
  status: "active",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-02T00:00:00.000Z",
  smsSender: null,
  trackLinks: true,
  sendingWindow: { days: ["mon"], start: "09:00", end: "24:00", skipPublicHolidays: true },
  allowedCountries: ["GB"],
};

const key = {
  id: "key_1",
  organizationId: "org_1",
  secretHash: "h",
  webhookSigningSecretSealed: "s",
  scopes: ["messages:send"],
  expiresAt: null,
  revokedAt: null,
  createdAt: "c",
  name: null,
};

describe("rowValues and insertStatement", () => {
  it("lists each column's field in column order, flags and JSON in the stored form", () => {
    expect(rowValues(sqlTables.campaigns, campaign, anonymous)).toEqual([
      "cmp_1",
      "org_1",
      "Welcome",
      "viber",
      "t",
      "transactional",
      "Shop",
      "Hi",
      60,
      "active",
      "2026-01-01T00:00:00.000Z",
      "2026-01-02T00:00:00.000Z",
      null,
      "t",
      '{"days":["mon"],"start":"09:00","end":"24:00","skipPublicHolidays":true}',
      '["GB"]',
    ]);
    expect(rowValues(sqlTables.apiKeys, key, numbered)[4]).toBe('["messages:send"]');
    expect(insertStatement(sqlTables.apiKeys, numbered, '"s"."api_keys"')).toBe(
      'INSERT INTO "s"."api_keys" (id, organization_id, secret_hash, ' +
        "webhook_signing_secret_sealed, scopes, expires_at, revoked_at, created_at, name) " +
        "VALUES ($1, $2, $3, $4, $5::json, $6, $7, $8, $9)",
    );
  });

  it("refuses a record without a column's field, and a flag that is not a boolean", () => {
    const { sender: _, ...withoutSender } = campaign;
    expect(() => rowValues(sqlTables.campaigns, withoutSender, anonymous)).toThrow(
      "A campaigns record has no value for column sender.",
    );
    expect(() =>
      rowValues(sqlTables.campaigns, { ...campaign, smsFallback: 1 }, anonymous),
    ).toThrow(/non-boolean in flag column sms_fallback/);
  });
});

describe("jsonRow", () => {
  it("names each column, encodes flags, and keeps a JSON column's value itself", () => {
    expect(jsonRow(sqlTables.apiKeys, key, numbered)).toEqual({
      id: "key_1",
      organization_id: "org_1",
      secret_hash: "h",
      webhook_signing_secret_sealed: "s",
      scopes: ["messages:send"],
      expires_at: null,
      revoked_at: null,
      created_at: "c",
      name: null,
    });
    expect(jsonRow(sqlTables.campaigns, campaign, anonymous)).toMatchObject({ sms_fallback: "t" });
    const { sender: _, ...withoutSender } = campaign;
    expect(() => jsonRow(sqlTables.campaigns, withoutSender, anonymous)).toThrow(
      "A campaigns record has no value for column sender.",
    );
  });
});

describe("setClause", () => {
  it("writes the fields present, numbered from where the statement's other values end", () => {
    const changes = { url: "https://x.test", topics: ["message.sent"], description: null };
    expect(
      setClause(sqlTables.webhookSubscriptions, { ...changes, status: undefined }, numbered, 3),
    ).toEqual({
      set: "url = $3, topics = $4::json, description = $5",
      values: ["https://x.test", '["message.sent"]', null],
    });
  });

  it("refuses a field that is no column of the table", () => {
    expect(() => setClause(sqlTables.campaigns, { colour: "red" }, anonymous)).toThrow(
      "Table campaigns has no column colour for field colour.",
    );
  });

  it("translates a field the schema does not know as it translates the ones it does", () => {
    expect(() => setClause(sqlTables.campaigns, { oddFieldName: 1 }, anonymous)).toThrow(
      "Table campaigns has no column odd_field_name for field oddFieldName.",
    );
    expect(setClause(sqlTables.campaigns, { smsFallback: false }, anonymous)).toEqual({
      set: "sms_fallback = ?",
      values: ["f"],
    });
  });
});

describe("newestFirstPages", () => {
  const pages = newestFirstPages(numbered);

  it("binds only the filters present, then the page's start and its limit", () => {
    const page = pages.messages(
      { organizationId: "org_1", phoneNumber: "+3816", createdBefore: "t", beforeSeq: 9, limit: 3 },
      "messages",
    );
    expect(page.text).toMatch(
      / FROM messages WHERE organization_id = \$1 AND phone_number = \$2 AND created_at < \$3 AND seq < \$4 ORDER BY seq DESC LIMIT \$5$/,
    );
    expect(page.values).toEqual(["org_1", "+3816", "t", 9, 3]);
  });

  it("reads a first page with the organization alone", () => {
    const page = pages.campaigns({ organizationId: "org_1", limit: 21 }, '"s"."campaigns"');
    expect(page.text).toMatch(
      /FROM "s"\."campaigns" WHERE organization_id = \$1 ORDER BY seq DESC LIMIT \$2$/,
    );
    expect(page.values).toEqual(["org_1", 21]);
  });
});
