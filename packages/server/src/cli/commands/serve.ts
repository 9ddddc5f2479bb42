import { ok } from "neverthrow";
import { checkHost } from "../../config.js";
import { failoverLogged } from "../../failover-config.js";
import { METRICS_PATH } from "../../observability/metrics-endpoint.js";
import { warnIfMetricsExposed } from "../../observability/metrics-listener.js";
import { startBackgroundWork } from "../../runtime/background.js";
import { listenHttp } from "../../runtime/http-listener.js";
import { warnIfCallbacksUnreachable } from "../../runtime/providers.js";
import { ConfigError } from "../../secret-key.js";
import type { Command, CommandContext } from "../command.js";
import { UsageError } from "../usage-error.js";

/** Resolves when the process is asked to stop; without a way to ask, it runs until killed. */
export const shutdownRequested = (context: CommandContext): Promise<string> =>
  context.io.waitForShutdown?.() ?? new Promise<string>(() => undefined);

const portOf = (text: string): number => {
  const port = /^[0-9]{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(port >= 0 && port <= 65_535)) {
    throw new UsageError(
      `--port must be a whole number from 0 to 65535, not ${JSON.stringify(text)}.`,
    );
  }
  return port;
};

/**
 * Turns a failure to listen into a message naming the setting at fault (`HOST` or `--host`,
 * `PORT` or `--port`): a host name that passes the syntax check may still not resolve.
 */
function listenFailure(
  error: unknown,
  host: string,
  hostFrom: string,
  port: number,
  portFrom: string,
): unknown {
  const { code } = error as NodeJS.ErrnoException;
  const cause = error instanceof Error ? ` (${error.message})` : "";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_FAIL") {
    return new ConfigError(
      `${hostFrom} ${JSON.stringify(host)} does not resolve to an address${cause}.`,
    );
  }
  if (code === "EADDRNOTAVAIL") {
    return new ConfigError(
      `${hostFrom} ${JSON.stringify(host)} is not an address of this machine${cause}.`,
    );
  }
  if (code === "EADDRINUSE") {
    return new ConfigError(`${portFrom} ${port} is already in use on ${host}${cause}.`);
  }
  if (code === "EACCES") {
    return new ConfigError(
      `${portFrom} ${port} on ${host} needs privileges this process lacks${cause}.`,
    );
  }
  return error;
}

/**
 * `serve [--port N] [--host H]`: the HTTP API, the webhook delivery engine, the expiry sweep
 * and the sandbox provider in one process, with Prometheus metrics at `/metrics`. On SIGTERM
 * or SIGINT it stops accepting requests, lets those in flight finish, waits for the webhook
 * attempts in flight, closes the storage and exits 0. Logs are JSON lines on stdout; the
 * `listening` line carries the actual port.
 */
export const serveCommand: Command = {
  name: ["serve"],
  summary:
    "Run the HTTP API, the web console, the webhook delivery engine and the expiry and retention sweeps.",
  usage: "[--port N] [--host H]",
  options: {
    port: {
      type: "string",
      value: "N",
      help: "The port to listen on; PORT, or 3000, by default; 0 picks a free one.",
    },
    host: {
      type: "string",
      value: "H",
      help: "The address to listen on; HOST, or 127.0.0.1, by default; 0.0.0.0 for every interface.",
    },
  },
  logsToStdout: true,
  observed: { servesMetrics: (config) => config.metrics },
  validate(flags) {
    if (typeof flags.port === "string") portOf(flags.port);
    const host = typeof flags.host === "string" ? checkHost(flags.host) : null;
    if (host?.isErr()) throw new UsageError(`--host ${host.error}`);
  },
  async run(context) {
    const { config, logger, runtime, flags } = context;
    // Listening for SIGTERM before saying `listening`: a supervisor (or `docker stop`) that
    // stops the server as soon as it is up must find it draining, not killed by the signal.
    const shutdown = shutdownRequested(context);
    const port = typeof flags.port === "string" ? portOf(flags.port) : config.port;
    const host = typeof flags.host === "string" ? flags.host : config.host;
    const background = await startBackgroundWork(runtime, logger, {
      leaseMs: config.webhookLeaseMs,
    });
    let http: Awaited<ReturnType<typeof listenHttp>>;
    try {
      http = await listenHttp(runtime, logger, host, port, config);
    } catch (error) {
      await background.stop();
      throw listenFailure(
        error,
        host,
        typeof flags.host === "string" ? "--host" : "HOST",
        port,
        typeof flags.port === "string" ? "--port" : "PORT",
      );
    }
    runtime.listeningAt(http.url);
    logger.info("listening", {
      port: http.port,
      host: http.host,
      url: http.url,
      database: config.database.kind,
      ...runtime.storageSettings,
      dev: config.dev,
      env_file: context.envFile,
      providers: { viber: config.providers.viber, sms: config.providers.sms },
      ...failoverLogged(config.providers.failover),
      engine: background.owner,
      console: config.console ? `${config.publicUrl ?? http.url}/console` : null,
      metrics: runtime.metrics ? `${http.url}${METRICS_PATH}` : null,
    });
    if (runtime.metrics) warnIfMetricsExposed(logger, http.host, config.metricsToken);
    warnIfCallbacksUnreachable(logger, config, http.url);
    const signal = await shutdown;
    logger.info("shutting down", { signal });
    await http.close();
    await background.stop();
    logger.info("stopped", { signal });
    return ok({ exitCode: 0 });
  },
};
