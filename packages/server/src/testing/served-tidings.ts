import type { Clock, InboundSink } from "@tidings/core";
import { type LogLine, startInProcess } from "./in-process.js";
import { createSender } from "./process-cluster.js";
import { tempWorkspace } from "./run-cli.js";

/** A `tidings serve` on a fresh SQLite database, with an organization ready to call the API. */
export interface ServedTidings {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The database file. */
  databasePath: string;
  /** A key of the organization holding every scope. */
  token: string;
  /** An active OTP campaign over SMS whose template takes a `pin`. */
  campaignId: string;
  /** The environment the server runs with, for more CLI commands. */
  env: Record<string, string>;
  logs(): LogLine[];
  waitForLog(msg: string, also?: (line: LogLine) => boolean): Promise<LogLine>;
  /** Calls the API with the key; `body` is sent as JSON. */
  call(method: string, path: string, body?: unknown): Promise<Response>;
  /**
   * Stops the server and starts it again on the same database, its environment changed by
   * `env` (a variable given `undefined` is removed); `url`, `env` and the logs are the new
   * server's.
   */
  restart(env: Record<string, string | undefined>): Promise<void>;
  /** Stops the server and removes the database. */
  stop(): Promise<void>;
}

/**
 * Starts the real server in-process (`serve --port 0`, SQLite, development mode so loopback
 * receivers are allowed) after creating, through the CLI, an organization, an all-scopes key
 * and an active campaign. `env` adds or overrides variables; `scopes` replaces the key's;
 * `inboundSink` receives what the providers' inbound routes verified, instead of the runtime's.
 */
export async function serveTidings(
  env: Record<string, string> = {},
  options: {
    scopes?: string | undefined;
    inboundSink?: InboundSink | undefined;
    clock?: Clock | undefined;
  } = {},
): Promise<ServedTidings> {
  const workspace = tempWorkspace();
  const fullEnv: Record<string, string> = {
    ...workspace.env,
    TIDINGS_DEV: "1",
    TIDINGS_LOG_LEVEL: "info",
    ...env,
  };
  const scopes = options.scopes ?? "profiles:read,profiles:write,messages:send,webhooks:manage";
  const { token, campaignId } = await createSender(fullEnv, scopes);
  const start = async () => {
    const started = startInProcess(workspace.dir, ["serve", "--port", "0"], fullEnv, {
      inboundSink: options.inboundSink,
      clock: options.clock,
    });
    try {
      const { port } = await started.waitForLog("listening");
      return { server: started, url: `http://127.0.0.1:${port}` };
    } catch (error) {
      // Not left running; stopping it again in `stop` is harmless.
      await Promise.resolve(started.stop()).catch(() => undefined);
      throw error;
    }
  };
  let { server, url } = await start();
  return {
    get url() {
      return url;
    },
    databasePath: (fullEnv.TIDINGS_DATABASE_URL ?? "").slice("sqlite:".length),
    token,
    campaignId,
    env: fullEnv,
    logs: () => server.logs(),
    waitForLog: (msg, also) => server.waitForLog(msg, also),
    call: (method, path, body) =>
      fetch(`${url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    async restart(env) {
      await server.stop();
      for (const [name, value] of Object.entries(env)) {
        if (value === undefined) delete fullEnv[name];
        else fullEnv[name] = value;
      }
      ({ server, url } = await start());
    },
    async stop() {
      await server.stop();
      workspace.cleanup();
    },
  };
}
