import type { HttpResponse } from "@tidings/adapter-http";
import {
  type Actor,
  type Deps,
  type DomainError,
  RECOMMENDED_LIMITS,
  validationError,
} from "@tidings/core";
import { err, type Result } from "neverthrow";
import type { VNode } from "preact";
import { renderToString } from "preact-render-to-string";
import type { FieldErrors, PageFrame } from "./components.js";
import { type ConsoleRequest, htmlResponse, redirect } from "./http.js";

/** Everything a signed-in page handler gets. */
export interface PageContext {
  deps: Deps;
  request: ConsoleRequest;
  frame: PageFrame;
  actor: Actor;
  /** The record the path names (its `:id`, e.g. `cmp_…`); `""` on a path without one. */
  id: string;
  /** Renders the 404 page of this console. */
  notFound(): HttpResponse;
}

export type PageHandler = (context: PageContext) => Promise<HttpResponse>;

/** A route of the signed-in console: `:name` segments are parameters. */
export interface PageRoute {
  method: "GET" | "POST";
  pattern: string;
  handle: PageHandler;
}

/** The HTML of a page, with its doctype. */
export function renderPage(status: number, page: VNode, headers?: Record<string, string>) {
  return htmlResponse(status, `<!doctype html>${renderToString(page)}`, headers);
}

/** A redirect to a console path, with a notice to show there (`?notice=…`). */
export function redirectTo(frame: PageFrame, path: string, notice?: string): HttpResponse {
  const url = `${frame.base}${path}` || "/";
  if (notice === undefined) return redirect(url);
  return redirect(`${url}${url.includes("?") ? "&" : "?"}notice=${encodeURIComponent(notice)}`);
}

/**
 * A POST that changes the record its path names and goes back to a page: `run` is the use
 * case; a record the organization cannot see answers the 404 page, anything done redirects to
 * `back` (a console path) with the notice of `notice`.
 */
export function changeRoute<T>(
  pattern: string,
  run: (context: PageContext) => PromiseLike<Result<T, DomainError>>,
  back: (id: string) => string,
  notice: string,
): PageRoute {
  return {
    method: "POST",
    pattern,
    async handle(context) {
      const done = await run(context);
      if (done.isErr()) return context.notFound();
      return redirectTo(context.frame, back(context.id), notice);
    },
  };
}

/** The notices a redirect may carry, by key; anything else in `?notice=` is ignored. */
const NOTICES: Record<string, string> = {
  campaign_created: "Campaign created.",
  campaign_saved: "Campaign saved.",
  campaign_activated: "Campaign activated: it can be triggered now.",
  campaign_deactivated: "Campaign deactivated: new sends are refused.",
  webhook_saved: "Webhook saved.",
  webhook_enabled: "Webhook enabled.",
  webhook_deleted: "Webhook deleted; its pending deliveries were cancelled.",
  delivery_redelivered: "Delivery queued again: it is attempted within seconds.",
  key_revoked: "API key revoked: requests made with it are refused from now on.",
  suppression_added: "Suppression added: sends to this number on that channel are refused.",
  suppression_removed: "Suppression removed: the consent flag is unchanged; set it again if asked.",
  message_cancelled: "Message cancelled: it will never be sent.",
  message_not_scheduled:
    "The message was no longer scheduled (released or cancelled meanwhile): nothing was cancelled.",
  profile_erased: "Profile erased: what identified the person is gone; the consent history stays.",
  settings_saved: "Settings saved: every process applies them to the next send.",
  settings_recommended:
    `Recommended limits applied: ${RECOMMENDED_LIMITS.destination_limits.per_hour} sends an hour ` +
    `and ${RECOMMENDED_LIMITS.destination_limits.per_day} a day per number, ` +
    `${RECOMMENDED_LIMITS.prefix_limits.per_hour} an hour per number range.`,
};

/** The notice named by `?notice=`, if it is one of ours (never text taken from the URL). */
export const noticeOf = (request: ConsoleRequest): string | null =>
  NOTICES[request.query.get("notice") ?? ""] ?? null;

/** A form the use case refused: its error, and the problems by the field each belongs to. */
export interface FormRefusal {
  error: DomainError;
  fields: FieldErrors;
}

/**
 * Runs a form's use case, unless a field held something that is no text (bytes that are no
 * UTF-8, a lone surrogate, NUL): then nothing runs, and the refusal names those fields, as the
 * REST API's 400 does. A refusal carries its problems by form field (named as the API names
 * them).
 */
export async function submitForm<T>(
  context: PageContext,
  run: () => PromiseLike<Result<T, DomainError>>,
): Promise<Result<T, FormRefusal>> {
  const { formIssues } = context.request;
  const answer = formIssues.length > 0 ? err(validationError(formIssues)) : await run();
  return answer.mapErr((error) => ({ error, fields: fieldErrorsOf(error) }));
}

/** The problems of a domain error, by the form field each belongs to. */
export function fieldErrorsOf(
  error: DomainError,
  fieldOf: (path: string) => string = (path) => path,
): FieldErrors {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => {
    errors[field] = [...(errors[field] ?? []), message];
  };
  if (error.type === "validation") {
    for (const issue of error.issues) {
      const field = fieldOf(issue.path.split(".")[0] ?? "");
      add(field, sentence(issue.message));
    }
    if (error.issues.length === 0) add("", error.message);
  } else if (error.type === "conflict" && error.issues && error.issues.length > 0) {
    for (const issue of error.issues) add(fieldOf(issue.path.split(".")[0] ?? ""), issue.message);
  } else {
    add("", error.message);
  }
  return errors;
}

/** "must be…" reads as a sentence beside its field: "Must be…". */
const sentence = (message: string): string =>
  message.length > 0 ? `${message[0]?.toUpperCase()}${message.slice(1)}` : message;
