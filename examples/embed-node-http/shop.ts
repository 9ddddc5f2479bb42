import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  createHttpApp,
  createRequestListener,
  createUrlPolicy,
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

export interface ShopOptions {
  /** 0 picks a free port. */
  port: number;
  /** A SQLite file, or `:memory:`. */
  database: string;
  /** 32 bytes as base64 or hex; a fresh one is generated when absent (fine for `:memory:`). */
  secretKey?: string | undefined;
}

/** The running shop: its URL, a first API key, and how to stop it. */
export interface RunningShop {
  url: string;
  token: string;
  webhookSigningSecret: string;
  close(): Promise<void>;
}

/** The shop's own pages: Tidings is one more route of an app that already exists. */
function shopRoutes(req: IncomingMessage, res: ServerResponse): void {
  if (req.method === "GET" && req.url === "/") {
    res.writeHead(200, { "content-type": "text/plain" }).end("Welcome to the shop.\n");
    return;
  }
  res.writeHead(404, { "content-type": "text/plain" }).end("Not a shop page.\n");
}

/**
 * An existing node:http server that embeds Tidings under `/messaging`: it composes the core's
 * ports itself (SQLite storage, the sandbox provider, the undici webhook transport), mounts the
 * REST API with `createRequestListener(app, { prefix: "/messaging" })` and runs the webhook
 * delivery engine in the same process.
 */
export async function startShop(options: ShopOptions): Promise<RunningShop> {
  const parsedKey = parseSecretKey(options.secretKey ?? generateSecretKey());
  if (parsedKey.isErr()) throw new Error(`The secret key is invalid: ${parsedKey.error}`);
  // Development settings: the webhook policy allows http://127.0.0.1 receivers.
  const urlPolicy = createUrlPolicy({ dev: true });
  const provider = sandboxProvider({ delayMs: 200 });
  const deps: Deps = {
    storage: sqliteStorage(options.database),
    clock: systemClock,
    ids: createIds(),
    secretBox: aesGcmSecretBox(parsedKey.value),
    provider,
    transport: undiciWebhookTransport({ urlPolicy }),
    urlPolicy,
    config: defaultConfig,
  };
  // The provider's lifecycle reports become message events and webhook deliveries.
  provider.onReport?.(async (messageId, report) => {
    await recordProviderReport(deps, messageId, report);
    engine.wake();
  });
  const engine = createDeliveryEngine(deps, { pollMs: 250 });
  engine.start();

  const tidings = createRequestListener(createHttpApp(deps, { basePath: "/messaging" }), {
    prefix: "/messaging",
  });
  const server = createServer((req, res) => {
    if (req.url === "/messaging" || req.url?.startsWith("/messaging/")) tidings(req, res);
    else shopRoutes(req, res);
  });
  await new Promise<void>((resolve) => server.listen(options.port, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  // What the shop's admin screen would do once: an organization and an API key for it.
  const org = await createOrganization(deps, { name: "The Shop" });
  if (org.isErr()) throw new Error(org.error.message);
  const key = await createApiKey(deps, {
    organization_id: org.value.id,
    scopes: ["profiles:read", "profiles:write", "messages:send", "webhooks:manage"],
  });
  if (key.isErr()) throw new Error(key.error.message);

  return {
    url: `http://127.0.0.1:${port}`,
    token: key.value.token,
    webhookSigningSecret: key.value.webhook_signing_secret,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await engine.stop();
      await provider.close();
      await deps.storage.close();
    },
  };
}
