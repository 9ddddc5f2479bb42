// Test support: one `tidings serve` (SQLite, sandbox provider) per test file, with an
// organization and an API key holding every scope, started as the server's own tests start it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  devChildEnv,
  runChildCliJson,
  type ServerProcess,
  startServer,
} from "../../../server/src/testing/child-cli.js";

export const ALL_SCOPES =
  "profiles:read,profiles:write,messages:send,messages:read,webhooks:manage,campaigns:manage";

/** An API key as `tidings keys create --json` prints it. */
export interface CreatedKey {
  token: string;
  webhook_signing_secret: string;
}

/** A running server and what a client needs to call it. */
export interface ServedTidings {
  baseUrl: string;
  server: ServerProcess;
  /** Runs `tidings <args> --json` against the same database. */
  cli<T>(...args: string[]): Promise<T>;
  /** A new organization's id. */
  newOrg(): Promise<string>;
  /** A new key in `org` with `scopes` (every scope by default). */
  newKey(org: string, scopes?: string): Promise<CreatedKey>;
  stop(): Promise<void>;
}

/** Starts `tidings serve` on a fresh SQLite database; `env` adds to the development defaults. */
export async function serveTidings(env: Record<string, string> = {}): Promise<ServedTidings> {
  const dir = mkdtempSync(join(tmpdir(), "tidings-client-"));
  const childEnv = { ...devChildEnv(dir), ...env };
  const cli = <T>(...args: string[]) => runChildCliJson<T>(args, childEnv);
  const server = await startServer(childEnv);
  return {
    baseUrl: `http://127.0.0.1:${server.port}`,
    server,
    cli,
    async newOrg() {
      return (await cli<{ org_id: string }>("orgs", "create", "--name", "Client tests")).org_id;
    },
    newKey: (org, scopes = ALL_SCOPES) =>
      cli<CreatedKey>("keys", "create", "--org", org, "--scopes", scopes),
    async stop() {
      server.child.kill("SIGKILL");
      await server.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
