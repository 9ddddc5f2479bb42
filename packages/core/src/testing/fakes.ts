import type {
  SecretBox,
  UrlPolicy,
  WebhookRequest,
  WebhookResponse,
  WebhookTransport,
} from "../ports.js";

/** Seals as `sealed:<plaintext>`, like the contract fixtures, so stored values stay readable. */
export const readableSecretBox: SecretBox = {
  seal: (plaintext) => `sealed:${plaintext}`,
  open: (sealed) => {
    if (!sealed.startsWith("sealed:")) throw new Error("not sealed by this box");
    return sealed.slice("sealed:".length);
  },
};

/** A URL policy that allows https URLs only, with no DNS; the reason names the rule. */
export const httpsOnly: UrlPolicy = {
  check: async (url) =>
    url.startsWith("https://")
      ? { allowed: true }
      : { allowed: false, reason: "must be an https URL." },
};

/** A transport that answers from a script and remembers every request. */
export interface FakeTransport extends WebhookTransport {
  requests: WebhookRequest[];
}

/** How a fake transport answers one request. */
export type Answer = (request: WebhookRequest) => WebhookResponse | Promise<WebhookResponse>;

/** A response with this status code and no body. */
export const status = (code: number, headers: Record<string, string> = {}): WebhookResponse => ({
  kind: "response",
  status: code,
  headers,
  body: "",
  durationMs: 5,
});

/** A fake transport answering with `answer` (200 by default). */
export function fakeTransport(answer: Answer = () => status(200)): FakeTransport {
  const requests: WebhookRequest[] = [];
  return {
    requests,
    async post(request) {
      requests.push(request);
      return answer(request);
    },
  };
}
