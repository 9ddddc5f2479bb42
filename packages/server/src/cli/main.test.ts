import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SCOPES } from "@tidings/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Captured, cliOrganization, runCli, tempWorkspace } from "../testing/run-cli.js";

let workspace: ReturnType<typeof tempWorkspace>;
beforeEach(() => {
  workspace = tempWorkspace();
});
afterEach(() => workspace.cleanup());

const cli = (...argv: string[]) => runCli(argv, workspace.env);

/** `keys create --org ORG --scopes SCOPES` with any further arguments. */
const createKey = (org: string, scopes: string, ...extra: string[]) =>
  cli("keys", "create", "--org", org, "--scopes", scopes, ...extra);

describe("the command line", () => {
  it("prints the list of commands and exits 2 when called without one", async () => {
    const run = await cli();
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("profiles import");
    expect(run.stdout).toBe("");
  });

  it("prints help on stdout with --help and exits 0", async () => {
    expect((await cli("--help")).code).toBe(0);
    const command = await cli("keys", "create", "--help");
    expect(command.code).toBe(0);
    expect(command.stdout).toContain("--scopes");
    // Every scope a key can hold is listed, the operator scopes included.
    for (const scope of SCOPES) expect(command.stdout).toContain(scope);
    expect(command.stdout).toContain("campaigns:manage");
    expect(command.stdout).toContain("messages:read");
  });

  it("keys create accepts the operator scopes, and a key holds exactly the scopes it was given", async () => {
    const org = await cliOrganization(workspace.env);
    const created = await createKey(org, "campaigns:manage,messages:read", "--json");
    expect(created.code).toBe(0);
    expect(created.json()).toMatchObject({ scopes: ["campaigns:manage", "messages:read"] });
    const refused = await createKey(org, "campaigns:write");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("campaigns:manage");
  });

  it.each([
    [
      ["campains", "list", "--org", "org_x"],
      'unknown command "campains list"; did you mean campaigns list?',
    ],
    [["campaigns", "lst"], 'unknown command "campaigns lst"; did you mean campaigns list?'],
    [["campains"], 'unknown command "campains"; did you mean campaigns?'],
    [["--versoin"], "unknown option --versoin; did you mean --version?"],
    [
      ["--org", "org_x"],
      "unknown option --org; a command comes first: tidings <command> [options].",
    ],
    [["keys", "revok", "key_1"], 'unknown command "keys revok key_1"; did you mean keys revoke?'],
    [
      ["console", "sesions", "revoke", "--org", "org_x"],
      'unknown command "console sesions revoke"; did you mean console sessions revoke?',
    ],
    [["frobnicate", "--name", "x"], 'unknown command "frobnicate".'],
  ])("suggests the closest command for a typo: tidings %j", async (argv, message) => {
    const run = await cli(...argv);
    expect(run.code).toBe(2);
    expect(run.stderr.split("\n")[0]).toBe(`error: ${message}`);
  });

  it("exits 2 for an unknown command, an unknown option and a missing option", async () => {
    const unknown = await cli("frobnicate");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command");
    const group = await cli("keys");
    expect(group.code).toBe(2);
    expect(group.stderr).toContain("did you mean keys create, keys list, keys revoke?");
    const option = await cli("orgs", "create", "--name", "A", "--colour", "red");
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("--colour");
    const missing = await cli("orgs", "create");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("missing --name");
  });

  it("reports usage errors as one JSON line on stderr with --json, leaving stdout empty", async () => {
    const run = await cli("keys", "revoke", "--json");
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(JSON.parse(run.stderr)).toEqual({
      error: { code: "usage", message: expect.any(String) },
    });
  });

  it("stops with exit 1 and names every bad configuration variable", async () => {
    const run = await runCli(["migrate"], {
      ...workspace.env,
      PORT: "x",
      TIDINGS_DEV: "yes please",
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("PORT");
    expect(run.stderr).toContain("TIDINGS_DEV");
  });

  it("reports a bad key, host and database directory in one go with the other variables", async () => {
    const run = await runCli(["serve", "--json"], {
      TIDINGS_DATABASE_URL: `sqlite:${workspace.dir}/no/such/dir/t.db`,
      HOST: "not a host",
      TIDINGS_SECRET_KEY: "short",
      PORT: "x",
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    const problems = run.stderr
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { error: { code: string; message: string } });
    expect(problems.map((p) => p.error.code)).toEqual(Array(4).fill("configuration"));
    expect(problems.map((p) => p.error.message.split(" ")[0]).sort()).toEqual([
      "HOST",
      "PORT",
      "TIDINGS_DATABASE_URL",
      "TIDINGS_SECRET_KEY",
    ]);
  });

  it("names TIDINGS_DATABASE_URL when the database's directory does not exist", async () => {
    const run = await runCli(["migrate"], {
      TIDINGS_DATABASE_URL: `sqlite:${workspace.dir}/no/such/dir/t.db`,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("TIDINGS_DATABASE_URL points into");
  });

  it("refuses a malformed TIDINGS_SECRET_KEY before touching the database", async () => {
    const run = await runCli(["migrate"], { ...workspace.env, TIDINGS_SECRET_KEY: "short" });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("TIDINGS_SECRET_KEY");
    expect(existsSync(join(workspace.dir, "tidings.db"))).toBe(false);
  });
});

describe("migrate", () => {
  it("applies the migrations once, then finds the schema up to date", async () => {
    const first = await cli("migrate", "--json");
    expect(first.code).toBe(0);
    expect(first.json<{ applied: number[] }>().applied.length).toBeGreaterThan(0);
    const second = await cli("migrate", "--json");
    expect(second.json()).toEqual({
      applied: [],
      version: first.json<{ version: number }>().version,
    });
  });
});

describe("orgs and keys", () => {
  const createOrg = () => cliOrganization(workspace.env);

  it("creates an organization, answering exactly one JSON document with its org_id", async () => {
    const run = await cli("orgs", "create", "--name", "Acme", "--json");
    expect(run.code).toBe(0);
    expect(run.json()).toEqual({
      org_id: expect.stringMatching(/^org_/),
      name: "Acme",
      created_at: expect.any(String),
    });
  });

  it("answers text for a person without --json", async () => {
    const run = await cli("orgs", "create", "--name", "Acme");
    expect(run.stdout).toMatch(/^Created organization org_\S+ \(Acme\)\.\n$/);
  });

  it("creates a key whose token is key_id:key_secret, then lists and revokes it", async () => {
    const org = await createOrg();
    const created = await createKey(org, "profiles:read, messages:send", "--json");
    expect(created.code).toBe(0);
    const key = created.json<{ key_id: string; key_secret: string; token: string }>();
    expect(created.json()).toMatchObject({
      scopes: ["profiles:read", "messages:send"],
      expires_at: null,
      webhook_signing_secret: expect.stringMatching(/^whsec_/),
    });
    expect(key.token).toBe(`${key.key_id}:${key.key_secret}`);

    const listed = (await cli("keys", "list", "--org", org, "--json")).json<{
      data: Array<Record<string, unknown>>;
    }>();
    expect(listed.data).toEqual([
      expect.objectContaining({ key_id: key.key_id, revoked_at: null }),
    ]);
    expect(JSON.stringify(listed)).not.toContain(key.key_secret);

    const revoked = await cli("keys", "revoke", key.key_id, "--json");
    expect(revoked.json()).toMatchObject({ key_id: key.key_id, revoked_at: expect.any(String) });
  });

  it("prints every issue of a refused key and exits 1", async () => {
    const org = await createOrg();
    const run = await createKey(org, "profiles:read,admin", "--expires-at", "tomorrow");
    expect(run.code).toBe(1);
    // Named by the flag typed, the item counted from 1, never by the API's `scopes[1]`.
    expect(run.stderr).toContain("  --scopes (item 2): must be one of profiles:read");
    expect(run.stderr).not.toContain("scopes[1]");
    expect(run.stderr).toContain("--expires-at: ");
    const json = await createKey(org, "profiles:read,admin", "--json");
    expect(JSON.parse(json.stderr).error.issues).toEqual([
      expect.objectContaining({ path: "scopes[1]", flag: "--scopes" }),
    ]);
  });

  it("answers organization_not_found for an unknown --org", async () => {
    const run = await cli("keys", "list", "--org", "org_nope", "--json");
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stderr)).toMatchObject({ error: { code: "organization_not_found" } });
  });

  it("answers api_key_not_found when revoking an unknown key", async () => {
    const run = await cli("keys", "revoke", "key_nope");
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("api_key_not_found");
  });

  it("prints its version with --version, as text or JSON", async () => {
    const { version } = JSON.parse(
      readFileSync(new URL("../../package.json", import.meta.url), "utf8"),
    ) as { version: string };
    const text = await runCli(["--version"], workspace.env);
    expect(text).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: "" });
    expect((await runCli(["--version", "--json"], workspace.env)).json()).toEqual({ version });
  });

  it("suggests the flag a misspelt one was meant to be, and exits 2", async () => {
    const run = await runCli(["orgs", "create", "--nmae", "Acme"], workspace.env);
    expect(run.code).toBe(2);
    expect(run.stderr.split("\n")[0]).toBe("error: unknown option --nmae; did you mean --name?");
    const far = await runCli(["orgs", "create", "--colour", "red"], workspace.env);
    expect(far.stderr.split("\n")[0]).toBe("error: unknown option --colour.");
  });

  it("lists keys as a table with a header on a terminal", async () => {
    const org = await cliOrganization(workspace.env);
    await runCli(["keys", "create", "--org", org, "--scopes", "profiles:read"], workspace.env);
    const terminal = Object.assign(new Captured(), { isTTY: true });
    await runCli(["keys", "list", "--org", org], workspace.env, { stdout: terminal });
    const [header, row] = terminal.text().trimEnd().split("\n");
    expect(header).toMatch(/^KEY\s+STATE\s+SCOPES\s+NAME$/);
    expect(row).toMatch(/^key_\w+\s+active\s+profiles:read$/);
  });
});
