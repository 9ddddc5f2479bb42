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

/** Where every host app of this example mounts the API. */
export const PREFIX = "/messaging";

/** Tidings, composed once, ready to mount in any of the three frameworks. */
export interface EmbeddedTidings {
  /** The API as `fetch(request) → Response`, mounted under `PREFIX` (for Hono). */
  fetch: FetchHandler;
  /** The API as a node:http listener under `PREFIX` (for Express and Fastify). */
  listener: ReturnType<typeof createRequestListener>;
  /** A first API key's Bearer token. */
  token: string;
  close(): Promise<void>;
}

/**
 * Composes the core's ports (SQLite storage, the sandbox provider, the undici webhook
 * transport), starts the webhook delivery engine, and creates an organization with one key,
 * as a host app's admin screen would once.
 */
export async function embedTidings(database = ":memory:"): Promise<EmbeddedTidings> {
  const key = parseSecretKey(process.env.TIDINGS_SECRET_KEY ?? generateSecretKey());
  if (!key.ok) throw new Error(`TIDINGS_SECRET_KEY is invalid: ${key.message}`);
  // Development settings: webhooks may go to http://127.0.0.1.
  const urlPolicy = createUrlPolicy({ dev: true });
  const provider = sandboxProvider({ delayMs: 200 });
  const deps: Deps = {
    storage: sqliteStorage(database),
    clock: systemClock,
    ids: createIds(),
    secretBox: aesGcmSecretBox(key.key),
    provider,
    transport: undiciWebhookTransport({ urlPolicy }),
    urlPolicy,
    config: defaultConfig,
  };
  const engine = createDeliveryEngine(deps, { pollMs: 250 });
  provider.onReport?.(async (messageId, report) => {
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
