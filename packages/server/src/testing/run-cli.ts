import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterEach, beforeEach } from "vitest";
import type { CliIo } from "../cli/command.js";
import { main } from "../cli/main.js";

/** A writable that keeps what was written, for assertions. */
export class Captured extends Writable {
  chunks: string[] = [];
  isTTY = false;
  override _write(chunk: Buffer | string, _encoding: string, done: () => void): void {
    this.chunks.push(chunk.toString());
    done();
  }
  text(): string {
    return this.chunks.join("");
  }
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as the one JSON document `--json` promises. */
  json<T = Record<string, unknown>>(): T;
}

/** A temporary directory with a SQLite database URL, removed by `cleanup`. */
export function tempWorkspace(): { dir: string; env: Record<string, string>; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), "tidings-cli-"));
  return {
    dir,
    env: { TIDINGS_DATABASE_URL: `sqlite:${join(dir, "tidings.db")}`, TIDINGS_LOG_LEVEL: "warn" },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Runs the CLI in-process with captured output. */
export async function runCli(
  argv: string[],
  env: Record<string, string>,
  extra: Partial<CliIo> = {},
): Promise<CliRun> {
  const stdout = new Captured();
  const stderr = new Captured();
  const code = await main(argv, { env, cwd: tmpdir(), stdout, stderr, ...extra });
  return {
    code,
    stdout: stdout.text(),
    stderr: stderr.text(),
    json: <T>() => JSON.parse(stdout.text()) as T,
  };
}

/** Creates an organization through the CLI (`orgs create`) and answers its id. */
export async function cliOrganization(env: Record<string, string>, name = "Acme"): Promise<string> {
  const run = await runCli(["orgs", "create", "--name", name, "--json"], env);
  if (run.code !== 0) throw new Error(`orgs create exited ${run.code}: ${run.stderr}`);
  return run.json<{ org_id: string }>().org_id;
}

/** Creates an API key of `org` with `scopes` through the CLI (`keys create`); its token. */
export async function cliKey(
  env: Record<string, string>,
  org: string,
  scopes: readonly string[],
): Promise<string> {
  const run = await runCli(
    ["keys", "create", "--org", org, "--scopes", scopes.join(","), "--json"],
    env,
  );
  if (run.code !== 0) throw new Error(`keys create exited ${run.code}: ${run.stderr}`);
  return run.json<{ token: string }>().token;
}

/**
 * A fresh workspace with one organization before each test of the file, removed after it:
 * `cli(...)` runs the CLI on its database, `org` is the organization's id.
 */
export function cliWorkspaceEach(): {
  cli(...argv: string[]): Promise<CliRun>;
  readonly org: string;
  readonly workspace: ReturnType<typeof tempWorkspace>;
} {
  let workspace: ReturnType<typeof tempWorkspace> | undefined;
  let org: string | undefined;
  beforeEach(async () => {
    workspace = tempWorkspace();
    org = await cliOrganization(workspace.env);
  });
  afterEach(() => workspace?.cleanup());
  const current = () => {
    if (workspace === undefined || org === undefined) throw new Error("no test is running");
    return { workspace, org };
  };
  return {
    cli: (...argv) => runCli(argv, current().workspace.env),
    get org() {
      return current().org;
    },
    get workspace() {
      return current().workspace;
    },
  };
}

/** The scopes of a key that operates the API: campaigns, sends, reads and webhooks. */
export const OPERATOR_SCOPES = [
  "campaigns:manage",
  "messages:send",
  "messages:read",
  "webhooks:manage",
] as const;

/**
 * A fresh workspace in development mode, logging at info, with an organization and a key that
 * holds every operator scope; `cleanups` removes it. What the real-server operator tests
 * start from.
 */
export async function operatorWorkspace(
  cleanups: Array<() => Promise<void> | void>,
  env: Record<string, string> = {},
): Promise<{ dir: string; env: Record<string, string>; org: string; token: string }> {
  const workspace = tempWorkspace();
  cleanups.push(() => workspace.cleanup());
  const all = { ...workspace.env, TIDINGS_DEV: "1", TIDINGS_LOG_LEVEL: "info", ...env };
  const org = await cliOrganization(all);
  return { dir: workspace.dir, env: all, org, token: await cliKey(all, org, OPERATOR_SCOPES) };
}

/** The body of `POST /v1/campaigns` for an active SMS OTP campaign. */
export const OTP_CAMPAIGN = {
  name: "Login codes",
  channel: "sms",
  category: "otp",
  sender: "Acme",
  template: "Your code is {{pin}}",
  status: "active",
};
