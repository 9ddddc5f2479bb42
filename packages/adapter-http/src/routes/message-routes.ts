import {
  admitSend,
  isStorageUnavailable,
  recoverSendResult,
  sendMessage,
  sendMessageInput,
} from "@tidings/core";
import { type Answer, fromResult, json, problem } from "../answer.js";
import { readJsonBody } from "../json-body.js";
import { domainProblem, edgeProblems, isStorageBusy } from "../problem.js";
import type { Route } from "../route.js";
import { idempotent } from "./idempotent.js";
import { withinRateLimit } from "./rate-limited.js";

/** POST /v1/messages/send: rate limited per key, then idempotent, then the send itself. */
export const messageRoutes: Route[] = [
  {
    method: "POST",
    path: "/v1/messages/send",
    scope: "messages:send",
    doc: {
      operationId: "sendMessage",
      summary: "Send one message through an active API campaign.",
      tag: "Messages",
      body: {
        name: "SendMessageRequest",
        schema: sendMessageInput,
        example: {
          campaign_id: "cmp_01jd3v6k8x2m4n5p6q7r8s9t0v",
          recipient: { type: "phone_number", value: "+14155550101" },
          params: { pin: "123456" },
          client_reference: "login-42",
        },
      },
      success: { status: 200, schema: "SendResult", description: "The dispatch result." },
      errors: [400, 403, 404, 409, 413, 415, 422, 429],
      idempotent: true,
      rateLimited: true,
    },
    async handle(context) {
      // Counted after authentication and the scope check, before anything else: 400s and
      // replays count, so a client cannot probe for free (docs/decisions.md "Rate limit").
      // The organization's abuse protection is checked in the same hit: a send it refuses
      // stores nothing, and one its destination limits refuse is not counted on the key.
      const body = readJsonBody(context.request.headers, context.request.body);
      const admission = await admitSend(
        context.deps,
        context.actor,
        body.isOk() ? body.value : undefined,
      );
      // A destination limit refused: nothing was counted, so no RateLimit-* headers.
      if (admission.decision === null) return problem(domainProblem(admission.refusal));
      const { decision, refusal } = admission;
      return withinRateLimit(decision, "send requests", context.query, () =>
        // The hit is counted, so even a 503 says how many sends are left.
        orStorageBusy(() =>
          refusal !== null
            ? Promise.resolve(problem(domainProblem(refusal)))
            : idempotent(
                context,
                "POST /v1/messages/send",
                async (input, checkpoint) =>
                  fromResult(
                    await sendMessage(context.deps, context.actor, input, {
                      checkpoint,
                      campaign: admission.campaign,
                    }),
                  ),
                async (point) => {
                  const result = await recoverSendResult(context.deps, context.actor, point);
                  return result === null ? null : json(200, result);
                },
              ),
        ),
      );
    },
  },
];

/**
 * The answer, or 503 when the database stayed locked by another process (`storage_busy`) or is
 * unavailable (`storage_unavailable`, saying whether the message may have been stored).
 */
async function orStorageBusy(answer: () => Promise<Answer>): Promise<Answer> {
  try {
    return await answer();
  } catch (error) {
    if (isStorageBusy(error)) return problem(edgeProblems.storageBusy());
    if (isStorageUnavailable(error)) {
      return problem(edgeProblems.storageUnavailable(error.outcome, true));
    }
    throw error;
  }
}
