import {
  addSuppression,
  addSuppressionInput,
  listInbound,
  listInboundQuery,
  listSuppressions,
  listSuppressionsQuery,
  removeSuppression,
} from "@tidings/core";
import * as v from "valibot";
import { fromResult } from "../answer.js";
import type { Route } from "../route.js";
import { withQuery } from "../route.js";
import { callWithBody, callWithQuery } from "./use-case-handlers.js";

/** Suppressions (the numbers not to send to) and the messages people sent in. */
export const consentRoutes: Route[] = [
  {
    method: "GET",
    path: "/v1/suppressions",
    scope: "profiles:read",
    doc: {
      operationId: "listSuppressions",
      summary:
        "List suppressions, newest first; the number is shown only where the filter gives it.",
      tag: "Suppressions",
      query: listSuppressionsQuery,
      success: { status: 200, schema: "SuppressionPage", description: "A page of suppressions." },
      errors: [400],
    },
    handle: callWithQuery(listSuppressions),
  },
  {
    method: "POST",
    path: "/v1/suppressions",
    scope: "profiles:write",
    doc: {
      operationId: "addSuppression",
      summary:
        "Suppress a number on a channel (an opt-out received by phone, e-mail or any other means).",
      tag: "Suppressions",
      body: {
        name: "AddSuppressionRequest",
        schema: addSuppressionInput,
        example: { channel: "sms", phone_number: "+14155550101", note: "Asked by phone" },
      },
      success: { status: 201, schema: "Suppression", description: "The suppression." },
      errors: [400, 413, 415, 422],
    },
    handle: callWithBody(addSuppression, 201),
  },
  {
    method: "DELETE",
    path: "/v1/suppressions/{channel}/{phone_number}",
    scope: "profiles:write",
    doc: {
      operationId: "removeSuppression",
      summary:
        "Lift a suppression; one the person asked for (source inbound or provider) needs ?note=.",
      tag: "Suppressions",
      query: removeSuppressionQuery(),
      success: { status: 204, schema: null, description: "Lifted." },
      errors: [400, 404],
    },
    handle: (context) =>
      withQuery(context.query, async (query) =>
        fromResult(
          await removeSuppression(context.deps, context.actor, {
            ...query,
            channel: context.params.channel ?? "",
            phone_number: decodeURIComponent(context.params.phone_number ?? ""),
          }),
          204,
        ),
      ),
  },
  {
    method: "GET",
    path: "/v1/inbound",
    scope: "messages:read",
    doc: {
      operationId: "listInbound",
      summary: "List the messages people sent to the organization's senders, newest first.",
      tag: "Suppressions",
      query: listInboundQuery,
      success: {
        status: 200,
        schema: "InboundMessagePage",
        description: "A page of inbound messages.",
      },
      errors: [400],
    },
    handle: callWithQuery(listInbound),
  },
];

/** DELETE's query: the note that says why a person's own opt-out is lifted. */
function removeSuppressionQuery() {
  return v.strictObject(
    { note: v.optional(v.pipe(v.string(), v.maxLength(500))) },
    "only note is allowed.",
  );
}
