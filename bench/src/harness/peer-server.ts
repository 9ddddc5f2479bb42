import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

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
