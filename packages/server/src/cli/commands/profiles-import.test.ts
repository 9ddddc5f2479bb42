import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sqliteStorage } from "@tidings/adapter-sqlite";
import { describe, expect, it } from "vitest";
import { Captured, cliWorkspaceEach, runCli } from "../../testing/run-cli.js";
import type { ImportReport } from "./profiles-import.js";

const world = cliWorkspaceEach();
const { cli } = world;

const file = (name: string, text: string): string => {
  const path = join(world.workspace.dir, name);
  writeFileSync(path, text);
  return path;
};

/** `profiles import` of the world's organization from `path`, with any further arguments. */
const runImport = (path: string, ...extra: string[]) =>
  cli("profiles", "import", "--org", world.org, "--file", path, ...extra);

const importFile = async (path: string, ...extra: string[]) => {
  const run = await runImport(path, "--json", ...extra);
  expect(run.code).toBe(0);
  return run.json<ImportReport>();
};

describe("profiles import", () => {
  it("imports a CSV with a header row and reports each bad row with its line number", async () => {
    const csv = file(
      "people.csv",
      [
        "phone_number,email,first_name,last_name,viber_marketing_consent,sms_marketing_consent,attributes",
        '+14155550101,ada@example.com,Ada,Lovelace,true,no,"{""tier"":""gold""}"',
        "not-a-phone,,Bob,,,,",
        "+14155550102,,X,,maybe,,",
        "+14155550103,grace@example.com,Grace,Hopper,,,",
      ].join("\n"),
    );
    const report = await importFile(csv);
    expect(report).toMatchObject({ rows: 4, created: 2, updated: 0, unchanged: 0 });
    expect(report.rejected.map((r) => r.line)).toEqual([3, 4]);
    expect(report.rejected[0]?.issues).toEqual([expect.objectContaining({ path: "phone_number" })]);
    expect(report.rejected[1]?.issues.map((i) => i.path).sort()).toEqual([
      "first_name",
      "viber_marketing_consent",
    ]);
  });

  it("takes a time_zone column and rejects a zone the runtime does not know", async () => {
    const csv = file(
      "zones.csv",
      [
        "phone_number,first_name,time_zone",
        "+14155550101,Ada,America/Los_Angeles",
        "+14155550102,Bob,Mars/Olympus",
        "+14155550103,Cy,",
      ].join("\n"),
    );
    const report = await importFile(csv);
    expect(report.rejected.map((r) => r.line)).toEqual([3]);
    expect(report.rejected[0]?.issues).toEqual([expect.objectContaining({ path: "time_zone" })]);
    const storage = sqliteStorage(join(world.workspace.dir, "tidings.db"));
    try {
      const stored = await storage.profiles.list({ organizationId: world.org, limit: 10 });
      expect(Object.fromEntries(stored.map((p) => [p.phoneNumber, p.timeZone]))).toEqual({
        "+14155550101": "America/Los_Angeles",
        "+14155550103": null,
      });
    } finally {
      await storage.close();
    }
  });

  it("reports a bad row that spans several lines by the line it starts on", async () => {
    const csv = file(
      "multi-line.csv",
      [
        "phone_number,first_name,last_name",
        "+14155550101,Ada,Lovelace",
        '+14155550102,"Grace',
        'Brewster",Hopper',
        '+14155550103,"X',
        '",Short',
        "nope,Alan,Turing",
      ].join("\r\n"),
    );
    const report = await importFile(csv);
    expect(report).toMatchObject({ rows: 4, created: 2 });
    expect(report.rejected.map((r) => [r.line, r.issues.map((i) => i.path)])).toEqual([
      [5, ["first_name"]],
      [7, ["phone_number"]],
    ]);
  });

  it("imports JSON lines, reporting unreadable lines like invalid ones", async () => {
    const jsonl = file(
      "people.jsonl",
      [
        JSON.stringify({ phone_number: "+14155550101", first_name: "Ada" }),
        "{not json",
        "",
        JSON.stringify({ phone_number: "+14155550102", attributes: { plan: "pro", seats: 3 } }),
      ].join("\n"),
    );
    const report = await importFile(jsonl, "--source", "shopify");
    expect(report).toMatchObject({ rows: 3, created: 2 });
    expect(report.rejected).toEqual([
      { line: 2, issues: [{ path: "line", message: "is not valid JSON." }] },
    ]);
  });

  it("updates rather than duplicates on a re-run, keyed by phone number", async () => {
    const first = file(
      "a.jsonl",
      `${JSON.stringify({ phone_number: "+14155550101", first_name: "Ada" })}\n`,
    );
    await importFile(first);
    expect(await importFile(first)).toMatchObject({ created: 0, updated: 0, unchanged: 1 });
    const changed = file(
      "b.jsonl",
      `${JSON.stringify({ phone_number: "+1 415 555 0101", first_name: "Augusta" })}\n`,
    );
    expect(await importFile(changed)).toMatchObject({ created: 0, updated: 1, unchanged: 0 });
  });

  it("prints a summary with the bad lines for a person", async () => {
    const csv = file("p.csv", "phone_number\n+14155550101\nnope\n");
    const run = await runImport(csv);
    expect(run.stdout).toContain("2 rows from");
    expect(run.stdout).toContain("1 created");
    expect(run.stdout).toContain("line 3: phone_number:");
  });

  it("draws a progress bar on a terminal, but never with --json", async () => {
    const rows = Array.from({ length: 50 }, (_, i) => `+1415555${String(i).padStart(4, "0")}`);
    const csv = file("p.csv", `phone_number\n${rows.join("\n")}\n`);
    const terminal = () => Object.assign(new Captured(), { isTTY: true });
    const human = terminal();
    await runCli(["profiles", "import", "--org", world.org, "--file", csv], world.workspace.env, {
      stderr: human,
    });
    expect(human.text()).toContain("Importing 50 rows");
    const json = terminal();
    const run = await runCli(
      ["profiles", "import", "--org", world.org, "--file", csv, "--json"],
      world.workspace.env,
      {
        stderr: json,
      },
    );
    expect(json.text()).toBe("");
    expect(run.json()).toMatchObject({ unchanged: 50 });
  });

  it("fails with exit 1 when the file cannot be read", async () => {
    const run = await runImport(join(world.workspace.dir, "missing.csv"));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("missing.csv");
  });

  it("fails with exit 1 when the file turns out to be unreadable while reading", async () => {
    for (const name of ["folder.csv", "folder.jsonl"]) {
      mkdirSync(join(world.workspace.dir, name));
      const run = await runImport(join(world.workspace.dir, name));
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("EISDIR");
    }
  });

  it("fails once, with exit 1, when the header has no phone_number column", async () => {
    const csv = file("no-phone.csv", "phone,first_name\n+14155550101,Ada\n+14155550102,Bo\n");
    const run = await runImport(csv);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(
        /^error: the header row of .*no-phone\.csv has no phone_number column \(it has "phone", "first_name"\)/,
      ),
    ]);
    const listed = await runImport(csv, "--json");
    expect(listed.code).toBe(1);
    expect(JSON.parse(listed.stderr).error.message).toContain("no phone_number column");
  });

  it("reports a phone number repeated in the file with both line numbers", async () => {
    const csv = file(
      "twice.csv",
      "phone_number,first_name\n+14155550101,Ada\n+14155550102,Bo\n+1 415 555 0101,Ann\n",
    );
    const run = await runImport(csv);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      "line 4: phone_number: +14155550101 is also on line 2; each phone number may appear once in an import.",
    );
    expect(run.stdout).toMatch(/^3 rows from .*: 2 created, 0 updated, 0 unchanged, 1 rejected\./);
  });

  it("says 1 row, not 1 rows", async () => {
    const run = await runImport(file("one.csv", "phone_number\n+14155550101\n"));
    expect(run.stdout).toMatch(/^1 row from /);
  });

  it("exits 2 for an unknown --source", async () => {
    const run = await runImport("x.csv", "--source", "magento");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--source");
  });
});

describe("profiles lists add", () => {
  /** `profiles lists add` of the world's organization to the list VIP. */
  const addToVip = (...args: string[]) =>
    cli("profiles", "lists", "add", "--org", world.org, "--list", "VIP", ...args);
  const profileIds = async (): Promise<string[]> => {
    const storage = sqliteStorage(join(world.workspace.dir, "tidings.db"));
    try {
      return (await storage.profiles.list({ organizationId: world.org, limit: 10 })).map(
        (p) => p.id,
      );
    } finally {
      await storage.close();
    }
  };

  it("adds profiles to a list, creating the list on first use", async () => {
    const rows = ["+14155550101", "+14155550102"].map((phone_number) =>
      JSON.stringify({ phone_number }),
    );
    await importFile(file("a.jsonl", rows.join("\n")));
    const ids = await profileIds();
    const run = await addToVip(...ids, "--json");
    expect(run.code).toBe(0);
    expect(run.json()).toEqual({ list: expect.objectContaining({ name: "VIP" }), added: 2 });
    const again = await addToVip(ids[0] ?? "", "--json");
    expect(again.json()).toMatchObject({ added: 0 });
  });

  it("adds nothing when one profile is unknown", async () => {
    await importFile(file("a.jsonl", JSON.stringify({ phone_number: "+14155550101" })));
    const [id = ""] = await profileIds();
    const run = await addToVip(id, "prf_nope", "--json");
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stderr)).toMatchObject({ error: { code: "profile_not_found" } });
  });

  it("exits 2 without any profile id", async () => {
    expect((await addToVip()).code).toBe(2);
  });
});
