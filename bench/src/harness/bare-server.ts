import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";

/** What the bare server answers on one route. */
export interface BareReply {
  status: number;
  body: string;
}

/** A running bare server process. */
export interface BareServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts a bare node:http server in a child process (as Tidings runs in one), answering each
 * `METHOD /path` key with its reply; query strings are ignored, `METHOD *` is a fallback.
 */
export function startBareServer(routes: Record<string, BareReply>): Promise<BareServer> {
  const child = fork(fileURLToPath(new URL("./bare-server-main.ts", import.meta.url)), {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`bare server exited (${code})`)));
    child.once("message", (message: { port: number }) => {
      resolve({
        url: `http://127.0.0.1:${message.port}`,
        pid: child.pid!,
        stop: () =>
          new Promise<void>((done) => {
            child.removeAllListeners("exit");
            child.once("exit", () => done());
            child.kill("SIGTERM");
          }),
      });
    });
    child.send({ routes });
  });
}
