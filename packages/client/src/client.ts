import { errorOfResponse, TidingsError } from "./errors.js";
import { PageIterator } from "./pagination.js";
import { backoffMs, isRetryable, type Safety, sleep } from "./retry.js";
import type {
  AddSuppressionRequest,
  Campaign,
  CreateCampaignRequest,
  CreateProfileRequest,
  CreateWebhookRequest,
  Delivery,
  DeliveryWithAttempts,
  ErasePersonRequest,
  Erasure,
  Filters,
  InboundMessage,
  Message,
  MessageWithEvents,
  Page,
  PersonExport,
  Profile,
  ProfileWithSuppressions,
  RecoverResult,
  SendMessageRequest,
  SendResult,
  Settings,
  Suppression,
  UpdateCampaignRequest,
  UpdateProfileRequest,
  UpdateSettingsRequest,
  UpdateWebhookRequest,
  Webhook,
  WebhookTestResult,
  WebhookWithSecret,
} from "./types.js";

export interface TidingsOptions {
  /** The API key as `tidings keys create` prints it: `<key_id>:<key_secret>`. */
  token: string;
  /** Where Tidings answers, e.g. `https://tidings.example.com` (with its mount path, if any). */
  baseUrl: string;
  /** How long one attempt may take, answer included, before it counts as failed (30 000). */
  timeoutMs?: number | undefined;
  /** How many times a failed request is retried where that is safe (2). */
  maxRetries?: number | undefined;
  /** The fetch to call (the global one by default): a mock, or one with a proxy agent. */
  fetch?: typeof fetch | undefined;
}

/** Options every call takes. */
export interface RequestOptions {
  /** Cancels the call, and any wait before a retry; the call rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
  maxRetries?: number | undefined;
  /** Sent as `X-Request-Id`, which the server echoes and logs (1–128 visible ASCII). */
  requestId?: string | undefined;
}

/** Options of a call the server takes an `Idempotency-Key` on. */
export interface IdempotentRequestOptions extends RequestOptions {
  /**
   * The key to send, e.g. your own order id; a random UUID by default. The same key is sent
   * on every retry, so the server acts once; it keeps a key for 24 hours.
   */
  idempotencyKey?: string | undefined;
}

/** A list's filters and page size; `cursor` starts from a page a previous walk stopped at. */
type ListParams<Q> = Q & { limit?: number | undefined; cursor?: string | undefined };

type Query = Record<string, string | number | boolean | undefined>;

interface Call {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  query?: Query | undefined;
  body?: unknown;
  safety: Safety;
  idempotencyKey?: string | undefined;
  options?: RequestOptions | undefined;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RETRIES = 2;

/**
 * A random UUID v4. `crypto.randomUUID` exists only in secure contexts in browsers (https or
 * localhost); `getRandomValues` everywhere, so a page served over plain http can still send.
 */
function randomKey(): string {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A 404 for the record itself, not for the route. */
const isGone = (error: TidingsError) =>
  error.status === 404 && error.code !== "route_not_found" && error.code.endsWith("_not_found");

/**
 * A path segment from an id, encoded so an id can never reach another path. URLs treat `.`
 * and `..` (even as `%2E`) as steps up the path, so those two go double-encoded: no record has
 * such an id, and the server answers 404 for it instead of the URL climbing a level.
 */
const segment = (id: string) =>
  id === "." || id === ".." ? id.replaceAll(".", "%252E") : encodeURIComponent(id);

/**
 * The Tidings API: `profiles`, `messages`, `webhooks`, `deliveries`, `campaigns` and `settings`, each
 * method typed from the server's OpenAPI document. Failed calls are retried where that is
 * safe, and every failure is a `TidingsError`.
 */
export class Tidings {
  readonly #token: string;
  readonly #baseUrl: string;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #fetch: typeof fetch;

  constructor(options: TidingsOptions) {
    if (!options.token) throw new TypeError("Tidings: `token` is required.");
    if (!options.baseUrl) throw new TypeError("Tidings: `baseUrl` is required.");
    this.#token = options.token;
    this.#baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    // Called unbound, as some runtimes' fetch refuses a `this` other than the global object.
    const fetchFn = options.fetch ?? globalThis.fetch;
    this.#fetch = (input, init) => fetchFn(input, init);
  }

  readonly profiles = {
    /** Creates a profile; sent with an `Idempotency-Key`, so retries create it once. */
    create: (body: CreateProfileRequest, options?: IdempotentRequestOptions) =>
      this.#idempotent<Profile>("/v1/profiles", body, options),
    /** The profile, with `suppressed`: the channels on which its number opted out. */
    get: (publicId: string, options?: RequestOptions) =>
      this.#get<ProfileWithSuppressions>(`/v1/profiles/${segment(publicId)}`, undefined, options),
    update: (publicId: string, body: UpdateProfileRequest, options?: RequestOptions) =>
      this.#request<Profile>({
        method: "PATCH",
        path: `/v1/profiles/${segment(publicId)}`,
        body,
        safety: "unsafe",
        options,
      }),
    /** Soft-deletes the profile; it answers 404 from then on. */
    delete: (publicId: string, options?: RequestOptions) =>
      this.#delete(`/v1/profiles/${segment(publicId)}`, options),
    /** Every profile, oldest first, or those with one `phone_number` or `email`. */
    list: (params?: ListParams<Filters<"listProfiles">>, options?: RequestOptions) =>
      this.#list<Profile>("/v1/profiles", params, options),
    /**
     * Erases the profile (active or deleted) and what identifies its person, irreversibly;
     * its consent history stays. Erasing it again answers zero counts.
     */
    erase: (publicId: string, options?: RequestOptions) =>
      this.#post<Erasure>(
        `/v1/profiles/${segment(publicId)}/erase`,
        undefined,
        "idempotent",
        options,
      ),
    /** Everything held about the profile's person (scopes `profiles:read` and `messages:read`). */
    export: (publicId: string, options?: RequestOptions) =>
      this.#get<PersonExport>(`/v1/profiles/${segment(publicId)}/export`, undefined, options),
  };

  readonly privacy = {
    /**
     * Erases everyone held under a phone number or an e-mail address (give one of them).
     * Repeating it is harmless (nothing is left to erase), so it is retried like a read.
     */
    erase: (body: ErasePersonRequest, options?: RequestOptions) =>
      this.#post<Erasure>("/v1/privacy/erase", body, "idempotent", options),
    /** Everything held under a phone number or an e-mail address (give one of them). */
    export: (query: ErasePersonRequest, options?: RequestOptions) =>
      this.#get<PersonExport>("/v1/privacy/export", query, options),
  };

  readonly suppressions = {
    /** Suppressions, newest first; the number is shown only where the filter names it. */
    list: (params?: ListParams<Filters<"listSuppressions">>, options?: RequestOptions) =>
      this.#list<Suppression>("/v1/suppressions", params, options),
    /** Suppresses a number on a channel (source `api`); sends there answer 403 from then on. */
    add: (body: AddSuppressionRequest, options?: RequestOptions) =>
      this.#post<Suppression>("/v1/suppressions", body, "unsafe", options),
    /** Lifts one; a suppression the person asked for needs a `note` saying why. */
    remove: (
      channel: "sms" | "viber",
      phoneNumber: string,
      params?: { note?: string | undefined },
      options?: RequestOptions,
    ) =>
      this.#request<undefined>({
        method: "DELETE",
        path: `/v1/suppressions/${segment(channel)}/${segment(phoneNumber)}`,
        query: params?.note === undefined ? undefined : { note: params.note },
        safety: "idempotent",
        options,
      }),
  };

  readonly inbound = {
    /** The messages people sent to the organization's senders, newest first. */
    list: (params?: ListParams<Filters<"listInbound">>, options?: RequestOptions) =>
      this.#list<InboundMessage>("/v1/inbound", params, options),
  };

  readonly messages = {
    /** Sends one message through an active campaign; sent with an `Idempotency-Key`. */
    send: (body: SendMessageRequest, options?: IdempotentRequestOptions) =>
      this.#idempotent<SendResult>("/v1/messages/send", body, options),
    /** The message and every lifecycle event so far (scope `messages:read`). */
    get: (messageId: string, options?: RequestOptions) =>
      this.#get<MessageWithEvents>(`/v1/messages/${segment(messageId)}`, undefined, options),
    /** Messages, newest first, filtered by status, campaign, reference, phone or time. */
    list: (params?: ListParams<Filters<"listMessages">>, options?: RequestOptions) =>
      this.#list<Message>("/v1/messages", params, options),
    /**
     * Cancels a scheduled message (scope `messages:send`); 409 `message_not_scheduled` once it
     * is released, cancelled or otherwise not scheduled. Not retried: a retry after a lost
     * answer would hear 409 for its own cancel.
     */
    cancel: (messageId: string, options?: RequestOptions) =>
      this.#post<Message>(
        `/v1/messages/${segment(messageId)}/cancel`,
        undefined,
        "unsafe",
        options,
      ),
    /** The webhook deliveries of the message's events (scope `webhooks:manage`). */
    deliveries: (
      messageId: string,
      params?: ListParams<Filters<"listMessageDeliveries">>,
      options?: RequestOptions,
    ) => this.#list<Delivery>(`/v1/messages/${segment(messageId)}/deliveries`, params, options),
  };

  readonly webhooks = {
    /** Subscribes a URL to topics; the answer holds the `signing_secret`, shown this once. */
    create: (body: CreateWebhookRequest, options?: RequestOptions) =>
      this.#post<WebhookWithSecret>("/v1/webhooks", body, "unsafe", options),
    /** Every subscription of the organization, oldest first (at most 100, in one answer). */
    list: async (options?: RequestOptions): Promise<Webhook[]> =>
      (await this.#get<Page<Webhook>>("/v1/webhooks", undefined, options)).data,
    get: (webhookId: string, options?: RequestOptions) =>
      this.#get<Webhook>(`/v1/webhooks/${segment(webhookId)}`, undefined, options),
    update: (webhookId: string, body: UpdateWebhookRequest, options?: RequestOptions) =>
      this.#request<Webhook>({
        method: "PATCH",
        path: `/v1/webhooks/${segment(webhookId)}`,
        body,
        safety: "unsafe",
        options,
      }),
    delete: (webhookId: string, options?: RequestOptions) =>
      this.#delete(`/v1/webhooks/${segment(webhookId)}`, options),
    /** Replaces the signing secret; the old one stops working at once. */
    rotateSecret: (webhookId: string, options?: RequestOptions) =>
      this.#post<WebhookWithSecret>(
        `/v1/webhooks/${segment(webhookId)}/rotate-secret`,
        undefined,
        "unsafe",
        options,
      ),
    /** Posts one signed `webhook.test` event now, without retries, and says how it went. */
    test: (webhookId: string, options?: RequestOptions) =>
      this.#post<WebhookTestResult>(
        "/v1/webhooks/test",
        { webhook_id: webhookId },
        "unsafe",
        options,
      ),
    /** The subscription's deliveries, newest first. */
    deliveries: (
      webhookId: string,
      params?: ListParams<Filters<"listWebhookDeliveries">>,
      options?: RequestOptions,
    ) => this.#list<Delivery>(`/v1/webhooks/${segment(webhookId)}/deliveries`, params, options),
    /** Makes every failed or cancelled delivery created since `since` pending again. */
    recover: (webhookId: string, since: string | Date, options?: RequestOptions) =>
      this.#post<RecoverResult>(
        `/v1/webhooks/${segment(webhookId)}/recover`,
        { since: typeof since === "string" ? since : since.toISOString() },
        "unsafe",
        options,
      ),
  };

  readonly deliveries = {
    /** Every delivery of the organization, newest first. */
    list: (params?: ListParams<Filters<"listDeliveries">>, options?: RequestOptions) =>
      this.#list<Delivery>("/v1/deliveries", params, options),
    /** The delivery and each of its attempts, oldest first. */
    get: (deliveryId: string, options?: RequestOptions) =>
      this.#get<DeliveryWithAttempts>(`/v1/deliveries/${segment(deliveryId)}`, undefined, options),
    /** Delivers a finished delivery again: the same id and body, due now. */
    redeliver: (deliveryId: string, options?: RequestOptions) =>
      this.#post<Delivery>(
        `/v1/deliveries/${segment(deliveryId)}/redeliver`,
        undefined,
        "unsafe",
        options,
      ),
  };

  readonly campaigns = {
    /** Creates a campaign (scope `campaigns:manage`), inactive unless `status` says otherwise. */
    create: (body: CreateCampaignRequest, options?: RequestOptions) =>
      this.#post<Campaign>("/v1/campaigns", body, "unsafe", options),
    get: (campaignId: string, options?: RequestOptions) =>
      this.#get<Campaign>(`/v1/campaigns/${segment(campaignId)}`, undefined, options),
    /** Campaigns, newest first. */
    list: (params?: ListParams<Filters<"listCampaigns">>, options?: RequestOptions) =>
      this.#list<Campaign>("/v1/campaigns", params, options),
    update: (campaignId: string, body: UpdateCampaignRequest, options?: RequestOptions) =>
      this.#request<Campaign>({
        method: "PATCH",
        path: `/v1/campaigns/${segment(campaignId)}`,
        body,
        safety: "unsafe",
        options,
      }),
    /** Makes the campaign sendable; repeating it is harmless, so it is retried like a read. */
    activate: (campaignId: string, options?: RequestOptions) =>
      this.#post<Campaign>(
        `/v1/campaigns/${segment(campaignId)}/activate`,
        undefined,
        "idempotent",
        options,
      ),
    deactivate: (campaignId: string, options?: RequestOptions) =>
      this.#post<Campaign>(
        `/v1/campaigns/${segment(campaignId)}/deactivate`,
        undefined,
        "idempotent",
        options,
      ),
  };

  /** The organization's abuse protection (scope `settings:manage`). */
  readonly settings = {
    get: (options?: RequestOptions) => this.#get<Settings>("/v1/settings", undefined, options),
    /** Changes the settings the body names; `null` turns a setting off. */
    update: (body: UpdateSettingsRequest, options?: RequestOptions) =>
      this.#request<Settings>({
        method: "PATCH",
        path: "/v1/settings",
        body,
        safety: "unsafe",
        options,
      }),
  };

  #get<T>(path: string, query: Query | undefined, options: RequestOptions | undefined) {
    return this.#request<T>({ method: "GET", path, query, safety: "idempotent", options });
  }

  #post<T>(path: string, body: unknown, safety: Safety, options: RequestOptions | undefined) {
    return this.#request<T>({ method: "POST", path, body, safety, options });
  }

  async #delete(path: string, options: RequestOptions | undefined): Promise<void> {
    await this.#request<undefined>({ method: "DELETE", path, safety: "idempotent", options });
  }

  #idempotent<T>(path: string, body: unknown, options: IdempotentRequestOptions | undefined) {
    return this.#request<T>({
      method: "POST",
      path,
      body,
      safety: "idempotent",
      idempotencyKey: options?.idempotencyKey ?? randomKey(),
      options,
    });
  }

  #list<T>(
    path: string,
    params: { cursor?: string | undefined } | undefined,
    options: RequestOptions | undefined,
  ): PageIterator<T> {
    const { cursor, ...query } = params ?? {};
    return new PageIterator<T>(
      (at) =>
        this.#get<Page<T>>(path, { ...(query as Query), ...(at ? { cursor: at } : {}) }, options),
      cursor,
    );
  }

  async #request<T>(call: Call): Promise<T> {
    const { options } = call;
    const maxRetries = options?.maxRetries ?? this.#maxRetries;
    const url = this.#url(call.path, call.query);
    const headers: Record<string, string> = {
      accept: "application/json",
      authorization: `Bearer ${this.#token}`,
    };
    if (call.body !== undefined) headers["content-type"] = "application/json";
    if (call.idempotencyKey !== undefined) headers["idempotency-key"] = call.idempotencyKey;
    if (options?.requestId !== undefined) headers["x-request-id"] = options.requestId;
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    for (let retry = 0; ; retry++) {
      const outcome = await this.#attempt(call.method, url, headers, body, options);
      if (!(outcome instanceof TidingsError)) return outcome as T;
      // A delete retried after its answer was lost finds the record gone: that is the answer.
      if (retry > 0 && call.method === "DELETE" && isGone(outcome)) return undefined as T;
      if (retry >= maxRetries || !isRetryable(call.safety, outcome)) throw outcome;
      await sleep(backoffMs(retry, outcome.retryAfter), options?.signal);
    }
  }

  /** One attempt: the parsed answer, or the error it stands for; throws only on the caller's abort. */
  async #attempt(
    method: string,
    url: string,
    headers: Record<string, string>,
    body: string | undefined,
    options: RequestOptions | undefined,
  ): Promise<unknown> {
    const timeoutMs = options?.timeoutMs ?? this.#timeoutMs;
    const caller = options?.signal;
    caller?.throwIfAborted();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const forward = () => controller.abort(caller?.reason);
    caller?.addEventListener("abort", forward, { once: true });
    try {
      const response = await this.#fetch(url, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal: controller.signal,
      });
      // The body is read under the same deadline: a server may stall after its headers.
      const text = await response.text();
      if (!response.ok) return errorOfResponse(response, text);
      if (text === "") return undefined;
      try {
        return JSON.parse(text);
      } catch (cause) {
        return new TidingsError({
          status: response.status,
          code: "unexpected_response",
          detail: "The answer is not JSON.",
          requestId: response.headers.get("x-request-id"),
          cause,
        });
      }
    } catch (cause) {
      if (caller?.aborted) throw caller.reason;
      const timedOut = controller.signal.aborted;
      return new TidingsError({
        status: 0,
        code: timedOut ? "timeout" : "network_error",
        detail: timedOut
          ? `No answer within ${timeoutMs} ms.`
          : `The request did not complete: ${(cause as Error)?.message ?? String(cause)}`,
        cause,
      });
    } finally {
      clearTimeout(timer);
      caller?.removeEventListener("abort", forward);
    }
  }

  #url(path: string, query: Query | undefined): string {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) search.set(name, String(value));
    }
    const text = search.toString();
    return `${this.#baseUrl}${path}${text ? `?${text}` : ""}`;
  }
}
