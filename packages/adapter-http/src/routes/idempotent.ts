import { type Checkpoint, withIdempotency } from "@tidings/core";
import { type Answer, problem, toStored } from "../answer.js";
import { headerValue } from "../headers.js";
import { bodyText, readJsonBody } from "../json-body.js";
import { domainProblem } from "../problem.js";
import type { RouteContext } from "../route.js";
import { withJsonBody } from "../route.js";

/** Nesting beyond this is hashed as raw text: the core's canonical hash recurses per level. */
const MAX_HASHED_DEPTH = 64;

/** Whether a parsed JSON value nests deeper than `max` (iterative, so depth cannot hurt). */
function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item.value !== "object" || item.value === null) continue;
    if (item.depth >= max) return true;
    for (const child of Object.values(item.value)) {
      stack.push({ value: child, depth: item.depth + 1 });
    }
  }
  return false;
}

/**
 * What decides "the same request": the parsed body (so key order and spacing do not matter),
 * or the raw text when it does not parse or nests too deeply to hash safely.
 */
function identityOf(context: RouteContext): unknown {
  const parsed = readJsonBody(context.request.headers, context.request.body);
  if (parsed.isOk() && !nestsDeeperThan(parsed.value, MAX_HASHED_DEPTH)) return parsed.value;
  return { raw: bodyText(context.request.body) ?? "" };
}

/**
 * Runs a JSON-body route under the request's `Idempotency-Key`, when it has one (docs/decisions.md
 * "Idempotency"): a repeat with the same body replays the stored answer with
 * `Idempotent-Replayed: true`, a different body is 422, a repeat while the first still runs is
 * 409. The core decides what is kept (never 401, 403, 429 or 5xx). `run` gets the checkpoint to
 * pass to its use case (none without a key); `recover` answers a retry of a request whose process
 * died after its work committed.
 */
export async function idempotent(
  context: RouteContext,
  endpoint: string,
  run: (input: unknown, checkpoint?: Checkpoint) => Promise<Answer>,
  recover?: (recoveryPoint: string) => Promise<Answer | null>,
): Promise<Answer> {
  const key = headerValue(context.request.headers, "idempotency-key");
  if (key === undefined) return withJsonBody(context, (input) => run(input));
  const outcome = await withIdempotency(
    context.deps,
    { apiKeyId: context.actor.apiKeyId, endpoint, key, requestBody: identityOf(context) },
    async (checkpoint) =>
      toStored(await withJsonBody(context, (input) => run(input, checkpoint)), context.requestId),
    recover &&
      (async (point) => {
        const answer = await recover(point);
        return answer === null ? null : toStored(answer, context.requestId);
      }),
  );
  if (outcome.isErr()) return problem(domainProblem(outcome.error));
  const { response, replayed } = outcome.value;
  return {
    kind: "stored",
    status: response.status,
    headers: replayed ? { ...response.headers, "idempotent-replayed": "true" } : response.headers,
    body: response.body,
  };
}
