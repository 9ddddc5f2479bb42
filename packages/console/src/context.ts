import type { HttpResponse } from "@tidings/adapter-http";
import type { Actor, Deps, DomainError } from "@tidings/core";
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
  /** The path's parameters, e.g. `{ id: "cmp_…" }`. */
  params: Record<string, string>;
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

/** The notices a redirect may carry, by key; anything else in `?notice=` is ignored. */
export const NOTICES: Record<string, string> = {
  campaign_created: "Campaign created.",
  campaign_saved: "Campaign saved.",
  campaign_activated: "Campaign activated: it can be triggered now.",
  campaign_deactivated: "Campaign deactivated: new sends are refused.",
  webhook_saved: "Webhook saved.",
  webhook_enabled: "Webhook enabled.",
  webhook_deleted: "Webhook deleted; its pending deliveries were cancelled.",
  delivery_redelivered: "Delivery queued again: it is attempted within seconds.",
  key_revoked: "API key revoked: requests made with it are refused from now on.",
};

/** The notice named by `?notice=`, if it is one of ours (never text taken from the URL). */
export const noticeOf = (request: ConsoleRequest): string | null =>
  NOTICES[request.query.get("notice") ?? ""] ?? null;

/** The problems of a domain error, by the form field each belongs to. */
export function fieldErrorsOf(error: DomainError, fieldOf: (path: string) => string): FieldErrors {
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
