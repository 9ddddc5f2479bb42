// Examples of the operator endpoints' answers, shown in the OpenAPI document.

export const MESSAGE_EXAMPLE = {
  message_id: "0194f2a1-7c3e-7d10-9a2b-3c4d5e6f7a8b",
  campaign_id: "cmp_01jd5x7k9m2n3p4q5r6s7t8v9w",
  category: "otp",
  channel: "sms",
  status: "delivered",
  recipient: { public_id: "prf_01jd5x7k9m2n3p4q5r6s7t8v9x", phone_number: "+14155550123" },
  client_reference: "login-4711",
  webhook_url: null,
  error: null,
  provider: "vonage",
  provider_message_id: "3f1c0e4a-2b8d-4e6f-9a7c-5b3d1e0f2a4c",
  tried_before: [{ provider: "twilio", outcome: "unreachable" }],
  provider_ttl_seconds: null,
  links: [
    {
      url: "https://t.example.com/l/4fJq8ZxK2mNb",
      original_url: "https://shop.example.com/orders/4711",
      clicks: 2,
      first_clicked_at: "2026-01-15T09:01:10.000Z",
      last_clicked_at: "2026-01-15T09:03:42.000Z",
    },
  ],
  price: { amount: "0.0079", currency: "EUR" },
  prices: [{ channel: "sms", provider: "vonage", amount: "0.0079", currency: "EUR" }],
  scheduled_for: null,
  expires_at: "2026-01-15T09:05:00.000Z",
  created_at: "2026-01-15T09:00:00.000Z",
  updated_at: "2026-01-15T09:00:02.000Z",
};

export const MESSAGE_WITH_EVENTS_EXAMPLE = {
  ...MESSAGE_EXAMPLE,
  events: [
    {
      event_id: "0194f2a1-7c3e-7d10-9a2b-3c4d5e6f7a8c",
      topic: "message.sent",
      channel: "sms",
      error: null,
      created_at: "2026-01-15T09:00:00.000Z",
    },
    {
      event_id: "0194f2a1-84f0-7d10-9a2b-3c4d5e6f7a8d",
      topic: "message.delivered",
      channel: "sms",
      error: null,
      created_at: "2026-01-15T09:00:02.000Z",
    },
  ],
};

export const DELIVERY_EXAMPLE = {
  delivery_id: "0194f2a1-7c40-7d10-9a2b-3c4d5e6f7a8e",
  webhook_id: "whk_01jd5x7k9m2n3p4q5r6s7t8v9y",
  url: "https://hooks.example.com/tidings",
  topic: "message.sent",
  message_id: "0194f2a1-7c3e-7d10-9a2b-3c4d5e6f7a8b",
  status: "failed",
  attempt_count: 2,
  last_status_code: 500,
  last_attempt_at: "2026-01-15T09:00:31.000Z",
  next_attempt_at: null,
  created_at: "2026-01-15T09:00:00.000Z",
  updated_at: "2026-01-15T09:00:31.000Z",
};

export const DELIVERY_WITH_ATTEMPTS_EXAMPLE = {
  ...DELIVERY_EXAMPLE,
  attempts: [
    {
      attempt: 0,
      started_at: "2026-01-15T09:00:00.000Z",
      duration_ms: 41,
      status_code: 500,
      error: "The receiver answered HTTP 500.",
      response_body: '{"error":"database down"}',
    },
    {
      attempt: 1,
      started_at: "2026-01-15T09:00:31.000Z",
      duration_ms: 38,
      status_code: 500,
      error: "The receiver answered HTTP 500.",
      response_body: '{"error":"database down"}',
    },
  ],
};

/** A page envelope around one example item. */
export const pageOf = (item: unknown) => ({
  data: [item],
  meta: { has_more: true, next_cursor: "MTIz" },
});
