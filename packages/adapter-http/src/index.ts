// @tidings/adapter-http: the REST API over node:http and as a web-standard fetch handler.
// Each line re-exports one module's names.

export type { HttpAppOptions } from "./app.js";
export { createHttpApp, DEFAULT_MAX_BODY_BYTES, servedOpenApiDocument } from "./app.js";
export type { FetchHandler, FetchHandlerOptions } from "./fetch-handler.js";
export { createFetchHandler } from "./fetch-handler.js";
export type { TrustedProxies } from "./links/client-address.js";
export { clientAddress, NO_TRUSTED_PROXIES, trustedProxies } from "./links/client-address.js";
export type { LinkAppOptions } from "./links/link-app.js";
export { createLinkApp, LINK_PATH } from "./links/link-app.js";
export { isLinkPreviewAgent, LINK_PREVIEW_AGENTS } from "./links/link-preview-agents.js";
export type { OpenApiOptions } from "./openapi/document.js";
export { buildOpenApiDocument } from "./openapi/document.js";
export type { Problem } from "./problem.js";
export { PROBLEM_TYPE_BASE, statusOf } from "./problem.js";
export { undiciProviderTransport } from "./provider-transport.js";
export { requestIdOf } from "./request-id.js";
export type { RequestListenerOptions } from "./request-listener.js";
export { createRequestListener } from "./request-listener.js";
export { UNMATCHED_ROUTE } from "./request-span.js";
export type { ServerOptions, TidingsHttpServer } from "./server.js";
export { createServer } from "./server.js";
export type { HttpApp, HttpLogger, HttpRequest, HttpResponse, RefusalReason } from "./types.js";
export type { Resolve, UrlPolicyOptions, WebhookUrlPolicy } from "./url-policy.js";
export { createUrlPolicy, isPublicAddress } from "./url-policy.js";
export type { ClosableWebhookTransport, WebhookTransportOptions } from "./webhook-transport.js";
export { undiciWebhookTransport } from "./webhook-transport.js";
