import { describe, expect, it } from "vitest";
import { runCli } from "../testing/run-cli.js";
import { COMMANDS } from "./help.js";

// Help needs no configuration and opens nothing: a bad environment must not matter.
const env = { TIDINGS_DATABASE_URL: "sqlite:/no/such/dir/t.db", PORT: "x" };
const cli = (...argv: string[]) => runCli(argv, env);

/** Runs a help command line and returns the one JSON document it printed on stdout. */
const helpDocument = async (...argv: string[]) => {
  const run = await cli(...argv);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).toBe("");
  return run.json<Record<string, unknown>>();
};

const names = COMMANDS.map((command) => command.name.join(" "));

describe("help with --json", () => {
  it.each([
    ["--help", "--json"],
    ["--json", "--help"],
    ["-h", "--json"],
    ["help", "--json"],
  ])("prints the command list as one JSON document: tidings %s %s", async (...argv) => {
    const document = await helpDocument(...argv);
    expect(document).toEqual({
      usage: "tidings <command> [options] [--json]",
      commands: expect.any(Array),
      notes: expect.any(String),
    });
    expect((document.commands as Array<{ command: string }>).map((c) => c.command)).toEqual(names);
  });

  it.each(names)("prints the help of %s as one JSON document", async (name) => {
    const words = name.split(" ");
    const command = COMMANDS.find((c) => c.name.join(" ") === name);
    const expected = {
      command: name,
      usage: expect.stringMatching(new RegExp(`^tidings ${name}\\b.*\\[--json\\]$`)),
      summary: command?.summary,
      ...(command?.details ? { details: command.details } : {}),
      options: expect.arrayContaining([
        expect.objectContaining({ name: "--json", type: "boolean", required: false }),
        ...(command?.required ?? []).map((option) =>
          expect.objectContaining({ name: `--${option}`, type: "string", required: true }),
        ),
      ]),
    };
    expect(await helpDocument(...words, "--help", "--json")).toEqual(expected);
    expect(await helpDocument("--json", ...words, "-h")).toEqual(expected);
    expect(await helpDocument("help", ...words, "--json")).toEqual(expected);
  });

  it("lists a group's commands for `tidings keys --help --json`", async () => {
    const document = await helpDocument("keys", "--help", "--json");
    expect((document.commands as Array<{ command: string }>).map((c) => c.command)).toEqual([
      "keys create",
      "keys list",
      "keys revoke",
    ]);
  });

  it("answers a usage error as JSON on stderr for help on an unknown command", async () => {
    const run = await cli("help", "frobnicate", "--json");
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(JSON.parse(run.stderr)).toEqual({
      error: { code: "usage", message: expect.stringContaining("frobnicate") },
    });
  });

  it("answers a usage error as JSON, and nothing on stdout, for `tidings --json` alone", async () => {
    const run = await cli("--json");
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(JSON.parse(run.stderr)).toEqual({
      error: { code: "usage", message: expect.any(String) },
    });
  });
});

describe("help without --json", () => {
  it("describes every option of every command, each in a sentence", async () => {
    for (const command of COMMANDS) {
      const run = await cli(...command.name, "--help");
      const options = run.stdout.slice(run.stdout.indexOf("\nOptions:\n"));
      for (const [name, spec] of Object.entries(command.options)) {
        expect(spec.help, `${command.name.join(" ")} --${name}`).toMatch(/^[A-Z`].{9,}\.$/);
        const line = options.split("\n").find((l) => l.trimStart().startsWith(`--${name} `));
        expect(line, `${command.name.join(" ")} --${name}`).toContain(spec.help);
      }
    }
    const create = (await cli("campaigns", "create", "--help")).stdout;
    expect(create).toMatch(/^ {2}--template TEMPLATE +The text, with \{\{param\}\} placeholders/m);
    expect(create).toMatch(/^ {2}--ttl SECONDS +How long/m);
    expect(create).toMatch(
      /^ {2}--category otp\|transactional\|promotional +What it sends.*Required\.$/m,
    );
  });

  it("keeps a gap between every command's name and its summary, however long the name", async () => {
    const run = await cli("--help");
    for (const command of COMMANDS) {
      expect(run.stdout).toMatch(
        new RegExp(`^ {2}${command.name.join(" ")} {2,}${command.summary.slice(0, 10)}`, "m"),
      );
    }
  });

  it("prints text for a person, for the list, a group and a command", async () => {
    for (const argv of [["--help"], ["help"], ["keys", "--help"], ["keys", "create", "-h"]]) {
      const run = await cli(...argv);
      expect(run.code, argv.join(" ")).toBe(0);
      expect(run.stdout).toMatch(/^usage: tidings /);
      expect(() => JSON.parse(run.stdout)).toThrow();
    }
  });
});
