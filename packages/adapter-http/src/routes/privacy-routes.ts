import {
  erasePerson,
  eraseProfile,
  exportPerson,
  exportProfile,
  type PersonMatch,
  personMatchInput,
} from "@tidings/core";
import * as v from "valibot";
import { type Answer, fromResult, problem } from "../answer.js";
import { domainProblem } from "../problem.js";
import type { Route } from "../route.js";
import { type RouteContext, withJsonBody, withQuery } from "../route.js";
import { callWithId } from "./use-case-handlers.js";

/** What the document shows of `{ phone_number | email }`; `personMatchInput` checks it. */
const personMatchDoc = v.object({
  phone_number: v.optional(
    v.pipe(v.string(), v.description("The person's number (any form that normalizes to E.164).")),
  ),
  email: v.optional(
    v.pipe(
      v.string(),
      v.description("The person's e-mail address (case-insensitive); instead of phone_number."),
    ),
  ),
});

/** Hands `next` the person `input` names, or answers 400 naming the field. */
async function withPerson(
  input: unknown,
  next: (match: PersonMatch) => Promise<Answer>,
): Promise<Answer> {
  const match = personMatchInput(input);
  if (match.isErr()) return problem(domainProblem(match.error));
  return next(match.value);
}

const BOTH_READS = ["profiles:read", "messages:read"] as const;

/** Erasure and export of what is held about a person (docs/api.md "Privacy"). */
export const privacyRoutes: Route[] = [
  {
    method: "POST",
    path: "/v1/profiles/{public_id}/erase",
    scope: "profiles:write",
    doc: {
      operationId: "eraseProfile",
      summary:
        "Erase a profile (active or deleted) and what identifies its person, irreversibly; its consent history stays.",
      tag: "Privacy",
      success: { status: 200, schema: "Erasure", description: "What was erased." },
      errors: [404],
    },
    handle: callWithId("public_id", eraseProfile),
  },
  {
    method: "POST",
    path: "/v1/privacy/erase",
    scope: "profiles:write",
    doc: {
      operationId: "erasePerson",
      summary:
        "Erase everyone held under a phone number or an e-mail address: every profile with it and every message to the number.",
      tag: "Privacy",
      body: {
        name: "ErasePersonRequest",
        schema: personMatchDoc,
        example: { phone_number: "+14155550101" },
      },
      success: { status: 200, schema: "Erasure", description: "What was erased." },
      errors: [400, 413, 415],
    },
    handle: (context: RouteContext) =>
      withJsonBody(context, (body) =>
        withPerson(body, async (match) =>
          fromResult(await erasePerson(context.deps, context.actor, match)),
        ),
      ),
  },
  {
    method: "GET",
    path: "/v1/profiles/{public_id}/export",
    scope: BOTH_READS,
    doc: {
      operationId: "exportProfile",
      summary:
        "Everything held about a profile's person (deleted and erased profiles too), in one document.",
      tag: "Privacy",
      success: { status: 200, schema: "PersonExport", description: "The export." },
      errors: [404],
    },
    handle: callWithId("public_id", exportProfile),
  },
  {
    method: "GET",
    path: "/v1/privacy/export",
    scope: BOTH_READS,
    doc: {
      operationId: "exportPerson",
      summary: "Everything held under a phone number or an e-mail address, in one document.",
      tag: "Privacy",
      query: personMatchDoc,
      success: { status: 200, schema: "PersonExport", description: "The export." },
      errors: [400],
    },
    handle: (context: RouteContext) =>
      withQuery(context.query, (query) =>
        withPerson(query, async (match) =>
          fromResult(await exportPerson(context.deps, context.actor, match)),
        ),
      ),
  },
];
