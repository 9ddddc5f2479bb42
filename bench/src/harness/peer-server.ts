import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { dropSchema } from "./fixture.js";
import type { PgPeerStart } from "./pg-peer-server-main.js";

/** A running straightforward server (see peer-server-main.ts), with its key and campaign. */
export interface PeerServer {
  url: string;
  pid: number;
  token: string;
  campaignId: string;
  /** Stops it and removes its database. */
  stop(): Promise<void>;
}

/**
 * Starts the straightforward server in a child process, on a fresh SQLite file, with one API
 * key and one active OTP campaign of `template`, and the send limit Tidings is benchmarked with.
 */
export function startPeerServer(options: {
  template: string;
  rateLimit: number;
  rateWindowMs: number;
  /** SQLite's `synchronous` setting, as Tidings is run with in the same comparison. */
  synchronous: "normal" | "full";
}): Promise<PeerServer> {
  const dir = mkdtempSync(join(tmpdir(), "tidings-peer-"));
  const child = fork(fileURLToPath(new URL("./peer-server-main.ts", import.meta.url)), {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`peer server exited (${code})`)));
    child.once("message", (message: { port: number; token: string; campaignId: string }) => {
      resolve({
        url: `http://127.0.0.1:${message.port}`,
        pid: child.pid!,
        token: message.token,
        campaignId: message.campaignId,
        stop: () =>
          new Promise<void>((done) => {
            child.removeAllListeners("exit");
            child.once("exit", () => {
              rmSync(dir, { recursive: true, force: true });
              done();
            });
            child.kill("SIGTERM");
          }),
      });
    });
    child.send({ path: join(dir, "peer.db"), ...options });
  });
}

/** A running straightforward server on PostgreSQL (see pg-peer-server-main.ts). */
export interface PgPeerServer extends PeerServer {
  /** The `application_name` of its connections. */
  applicationName: string;
  /** The schema its tables are in. */
  schema: string;
}

/**
 * Starts the straightforward server on PostgreSQL in a child process, in a new schema of the
 * database at `url` (dropped again by `stop`), with one API key and one active OTP campaign of
 * `template`, and the send limit Tidings is benchmarked with. `nodeArgs` and `env` go to the
 * child (the round-trip counting hook).
 */
export function startPgPeerServer(options: {
  url: string;
  applicationName: string;
  template: string;
  rateLimit: number;
  rateWindowMs: number;
  nodeArgs?: string[];
  env?: Record<string, string>;
}): Promise<PgPeerServer> {
  const { url, nodeArgs = [], env = {}, ...rest } = options;
  const schema = `peer_${randomBytes(4).toString("hex")}`;
  const child = fork(fileURLToPath(new URL("./pg-peer-server-main.ts", import.meta.url)), {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    execArgv: [...process.execArgv, ...nodeArgs],
    env: { ...process.env, ...env },
  });
  const start: PgPeerStart = { url, schema, ...rest };
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`PostgreSQL peer server exited (${code})`)));
    child.once("message", (message: { port: number; token: string; campaignId: string }) => {
      resolve({
        url: `http://127.0.0.1:${message.port}`,
        pid: child.pid!,
        token: message.token,
        campaignId: message.campaignId,
        applicationName: rest.applicationName,
        schema,
        stop: () =>
          new Promise<void>((done, failed) => {
            child.removeAllListeners("exit");
            child.once("exit", () => dropSchema(schema, url).then(done, failed));
            child.kill("SIGTERM");
          }),
      });
    });
    child.send(start);
  });
}
