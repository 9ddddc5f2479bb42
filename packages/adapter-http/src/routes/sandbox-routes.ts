import {
  isUuidV7,
  legOf,
  type MessageRecord,
  notFound,
  type ProviderReport,
  parseInput,
  providerOf,
  recordProviderReport,
} from "@tidings/core";
import * as v from "valibot";
import { fromResult, json, problem } from "../answer.js";
import { domainProblem } from "../problem.js";
import type { Route, RouteContext } from "../route.js";
import { withJsonBody } from "../route.js";

/** POST /sandbox/inbound body: a message a person sent, as a provider would bring it. */
export const sandboxInboundInput = v.strictObject(
  {
    channel: v.picklist(["sms", "viber"] as const, "must be sms or viber."),
    from: v.pipe(v.string("must be a string."), v.nonEmpty("must not be empty."), v.maxLength(64)),
    to: v.pipe(v.string("must be a string."), v.nonEmpty("must not be empty."), v.maxLength(64)),
    text: v.pipe(
      v.string("must be a string."),
      v.maxLength(1600, "must be at most 1600 characters."),
    ),
  },
  "only channel, from, to and text are allowed.",
);

const REPORTS: readonly ProviderReport[] = ["delivered", "seen", "clicked", "failed", "expired"];

/** POST /sandbox/messages/{message_id}/report body. */
export const sandboxReportInput = v.strictObject({
  status: v.picklist(REPORTS, `must be one of ${REPORTS.join(", ")}.`),
});

/**
 * The path's message when the caller's key sent it and it is on the sandbox now; `null` for
 * any other (one on a real provider is that provider's to report, and its text is not shown).
 */
async function sandboxMessageOf(context: RouteContext): Promise<MessageRecord | null> {
  const { deps, actor } = context;
  const messageId = context.params.message_id ?? "";
  if (!isUuidV7(messageId)) return null;
  const message = await deps.storage.messages.get(actor.organizationId, messageId);
  if (!message || message.apiKeyId !== actor.apiKeyId) return null;
  const provider =
    legOf(message, message.channel)?.provider ?? providerOf(deps.provider, message.channel);
  return provider === "sandbox" ? message : null;
}

/** The 404 of a message that is not the caller's sandbox message. */
const messageMissing = (context: RouteContext) => {
  const messageId = context.params.message_id ?? "";
  return problem(domainProblem(notFound("message", messageId, "message_not_found")));
};

/**
 * Drives a sandbox message's lifecycle as the upstream would. Only the key that sent the
 * message may report on it, and only while its current channel is on the sandbox; otherwise
 * the message does not exist here (404).
 */
export const sandboxRoutes: Route[] = [
  {
    method: "POST",
    path: "/sandbox/messages/{message_id}/report",
    scope: null,
    doc: {
      operationId: "reportSandboxMessage",
      summary: "Sandbox only: report a lifecycle event of a message sent with this key.",
      tag: "Sandbox",
      body: {
        name: "SandboxReportRequest",
        schema: sandboxReportInput,
        example: { status: "delivered" },
      },
      success: {
        status: 200,
        schema: "SandboxReportResult",
        description: "The message's status after the report.",
      },
      errors: [400, 404, 413, 415],
    },
    handle: (context) =>
      withJsonBody(context, async (input) => {
        const parsed = parseInput(sandboxReportInput, input);
        if (parsed.isErr()) return problem(domainProblem(parsed.error));
        const message = await sandboxMessageOf(context);
        if (message === null) return messageMissing(context);
        return fromResult(
          await recordProviderReport(context.deps, message.id, parsed.value.status),
        );
      }),
  },
];

/**
 * Development only (`TIDINGS_DEV=1`): what the sandbox was handed for a message, so a
 * developer sees a template's output. Only for the key that sent it, and only for a message on
 * the sandbox; never outside development, since an OTP's text is a secret.
 */
export const sandboxDevRoutes: Route[] = [
  {
    method: "POST",
    path: "/sandbox/inbound",
    scope: null,
    doc: {
      operationId: "sandboxInbound",
      summary:
        "Development only: a message a person sent to one of our senders, as a provider would bring it (provider sandbox).",
      tag: "Sandbox",
      body: {
        name: "SandboxInboundRequest",
        schema: sandboxInboundInput,
        example: { channel: "sms", from: "+14155550101", to: "+15005550006", text: "STOP" },
      },
      success: {
        status: 200,
        schema: "SandboxInboundResult",
        description: "What became of it: stored, duplicate, bad_sender or no_owner.",
      },
      errors: [400, 413, 415],
    },
    handle: (context) =>
      withJsonBody(context, async (input) => {
        const parsed = parseInput(sandboxInboundInput, input);
        if (parsed.isErr()) return problem(domainProblem(parsed.error));
        const outcome = await context.inbound.receive({
          provider: "sandbox",
          providerMessageId: context.deps.ids.uuidv7(),
          channel: parsed.value.channel,
          from: parsed.value.from,
          to: parsed.value.to,
          text: parsed.value.text,
          receivedAt: null,
          providerKeywordClass: null,
        });
        return json(200, { outcome });
      }),
  },
  {
    method: "GET",
    path: "/sandbox/messages/{message_id}",
    scope: null,
    doc: {
      operationId: "getSandboxMessage",
      summary:
        "Development only: the text the sandbox was handed for a message sent with this key.",
      tag: "Sandbox",
      success: {
        status: 200,
        schema: "SandboxMessage",
        description: "The message as handed to the sandbox.",
      },
      errors: [404],
    },
    async handle(context) {
      const message = await sandboxMessageOf(context);
      if (message === null) return messageMissing(context);
      return json(200, {
        message_id: message.id,
        channel: message.channel,
        sender: message.sender,
        text: message.body,
      });
    },
  },
];
