import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  createFetchHandler,
  createHttpApp,
  createRequestListener,
  createUrlPolicy,
  type FetchHandler,
  undiciWebhookTransport,
} from "@tidings/adapter-http";
import { sqliteStorage } from "@tidings/adapter-sqlite";
import {
  aesGcmSecretBox,
  createApiKey,
  createDeliveryEngine,
  createIds,
  createOrganization,
  type Deps,
  defaultConfig,
  generateSecretKey,
  parseSecretKey,
  recordProviderReport,
  sandboxProvider,
  systemClock,
} from "@tidings/core";

/** Where the host apps of the embedding examples mount the API. */
export const PREFIX = "/messaging";

/** Tidings, composed once, ready to mount in node:http, Express, Fastify or Hono. */
export interface EmbeddedTidings {
  /** The API as `fetch(request) → Response`, mounted under `PREFIX` (Hono, Bun, Deno…). */
  fetch: FetchHandler;
  /** The API as a node:http listener under `PREFIX` (node:http, Express, Fastify). */
  listener: ReturnType<typeof createRequestListener>;
  /** A first API key's Bearer token and webhook signing secret. */
  token: string;
  webhookSigningSecret: string;
  close(): Promise<void>;
}

export interface EmbedOptions {
  /** A SQLite file, or `:memory:` (the default). */
  database?: string | undefined;
  /** 32 bytes as base64 or hex; a fresh one is generated when absent (fine for `:memory:`). */
  secretKey?: string | undefined;
}

/**
 * Composes the core's ports (SQLite storage, the sandbox provider, the undici webhook
 * transport), starts the webhook delivery engine, and creates an organization with one key,
 * as a host app's admin screen would once.
 */
export async function embedTidings(options: EmbedOptions = {}): Promise<EmbeddedTidings> {
  const key = parseSecretKey(options.secretKey ?? generateSecretKey());
  if (key.isErr()) throw new Error(`The secret key is invalid: ${key.error}`);
  // Development settings: webhooks may go to http://127.0.0.1.
  const urlPolicy = createUrlPolicy({ dev: true });
  const provider = sandboxProvider({ delayMs: 200 });
  const deps: Deps = {
    storage: sqliteStorage(options.database ?? ":memory:"),
    clock: systemClock,
    ids: createIds(),
    secretBox: aesGcmSecretBox(key.value),
    provider,
    transport: undiciWebhookTransport({ urlPolicy }),
    urlPolicy,
    config: defaultConfig,
  };
  const engine = createDeliveryEngine(deps, { pollMs: 250 });
  provider.onReport(async (messageId, report) => {
    await recordProviderReport(deps, messageId, report);
    engine.wake();
  });
  engine.start();

  const org = await createOrganization(deps, { name: "The Shop" });
  if (org.isErr()) throw new Error(org.error.message);
  const apiKey = await createApiKey(deps, {
    organization_id: org.value.id,
    scopes: ["profiles:read", "profiles:write", "messages:send", "webhooks:manage"],
  });
  if (apiKey.isErr()) throw new Error(apiKey.error.message);

  const app = createHttpApp(deps, { basePath: PREFIX });
  return {
    fetch: createFetchHandler(app, { prefix: PREFIX }),
    listener: createRequestListener(app, { prefix: PREFIX }),
    token: apiKey.value.token,
    webhookSigningSecret: apiKey.value.webhook_signing_secret,
    async close() {
      await engine.stop();
      await provider.close();
      await deps.storage.close();
    },
  };
}

/** A host app started on a port, with its own routes beside Tidings. */
export interface RunningHost {
  url: string;
  token: string;
  close(): Promise<void>;
}

/** The running host of a server once it listens: closing it stops the server, then Tidings. */
export async function runningHost(server: Server, tidings: EmbeddedTidings): Promise<RunningHost> {
  if (!server.listening) await new Promise<void>((resolve) => server.once("listening", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token: tidings.token,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await tidings.close();
    },
  };
}
