import { cancelMessage, getMessage, listMessages, listMessagesQuery } from "@tidings/core";
import type { Route } from "../route.js";
import { MESSAGE_EXAMPLE, MESSAGE_WITH_EVENTS_EXAMPLE, pageOf } from "./operator-examples.js";
import { callWithId, callWithQuery } from "./use-case-handlers.js";

/**
 * Reading messages (one with its lifecycle, and the filtered list) under `messages:read`, and
 * cancelling a scheduled one under `messages:send`.
 */
export const messageReadRoutes: Route[] = [
  {
    method: "GET",
    path: "/v1/messages",
    scope: "messages:read",
    doc: {
      operationId: "listMessages",
      summary:
        "List the organization's messages, newest first, by status, campaign, client " +
        "reference, phone number and creation time (the filters combine).",
      tag: "Messages",
      query: listMessagesQuery,
      success: {
        status: 200,
        schema: "MessagePage",
        description: "A page of messages, without their events.",
        example: pageOf(MESSAGE_EXAMPLE),
      },
      errors: [400],
    },
    handle: callWithQuery(listMessages),
  },
  {
    method: "GET",
    path: "/v1/messages/{message_id}",
    scope: "messages:read",
    doc: {
      operationId: "getMessage",
      summary: "Retrieve a message with every lifecycle event, oldest first.",
      tag: "Messages",
      success: {
        status: 200,
        schema: "MessageWithEvents",
        description: "The message and its events.",
        example: MESSAGE_WITH_EVENTS_EXAMPLE,
      },
      errors: [404],
    },
    handle: callWithId("message_id", getMessage),
  },
  {
    method: "POST",
    path: "/v1/messages/{message_id}/cancel",
    scope: "messages:send",
    doc: {
      operationId: "cancelMessage",
      summary:
        "Cancel a scheduled message (held for its campaign's sending window or its send_at).",
      tag: "Messages",
      success: {
        status: 200,
        schema: "Message",
        description: "The message, now cancelled.",
        example: {
          ...MESSAGE_EXAMPLE,
          status: "cancelled",
          scheduled_for: "2026-01-15T09:00:00.000Z",
        },
      },
      errors: [404, 409],
      conflicts: ["message_not_scheduled"],
    },
    handle: callWithId("message_id", cancelMessage),
  },
];
