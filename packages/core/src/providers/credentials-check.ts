import type {
  ProviderHttpAnswer,
  ProviderHttpRequest,
  ProviderTransport,
} from "./http-provider.js";
import { requestFailure } from "./request-failure.js";

/**
 * What a provider's cheapest authenticated read said about Tidings' credentials (`tidings
 * providers check`): accepted, refused, not reachable, or not checkable with what is configured.
 */
export interface CredentialsCheck {
  outcome: "ok" | "refused" | "unreachable" | "skipped";
  /** A sentence for the operator: what was read, or what went wrong (never a secret). */
  detail: string;
}

/**
 * Makes a provider's cheapest authenticated read with the host's transport and says what it
 * means: `verdict` reads an answer (`null`: nothing particular, so a 401 or 403 is a refusal and
 * anything else an unexpected answer); no answer at all is `unreachable`, with its cause.
 */
export async function checkByRead(
  transport: ProviderTransport,
  title: string,
  request: ProviderHttpRequest,
  options: { timeoutMs: number },
  verdict: (answer: ProviderHttpAnswer) => CredentialsCheck | null,
): Promise<CredentialsCheck> {
  let answer: ProviderHttpAnswer;
  try {
    answer = await transport({ ...request, signal: AbortSignal.timeout(options.timeoutMs) });
  } catch (error) {
    const cause = requestFailure(error, false).cause;
    return { outcome: "unreachable", detail: `${title} could not be reached: ${cause}.` };
  }
  const read = verdict(answer);
  if (read !== null) return read;
  return answer.status === 401 || answer.status === 403
    ? { outcome: "refused", detail: `${title} refused the credentials (HTTP ${answer.status}).` }
    : { outcome: "unreachable", detail: `${title} answered HTTP ${answer.status}.` };
}
