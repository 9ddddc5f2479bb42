import type { HttpApp, HttpLogger, HttpRequest, HttpResponse } from "@tidings/adapter-http";
import {
  type ConsoleSession,
  type Deps,
  isCsrfToken,
  isSignInTokenValid,
  isStorageUnavailable,
  resumeSession,
  StorageBusyError,
  signIn,
  signOut,
} from "@tidings/core";
import { readAsset } from "./assets.js";
import type { PageFrame, Section } from "./components.js";
import { noticeOf, type PageContext, type PageRoute, renderPage } from "./context.js";
import {
  assetResponse,
  type ConsoleRequest,
  header,
  htmlResponse,
  parseRequest,
  redirect,
} from "./http.js";
import { campaignRoutes } from "./pages/campaigns.js";
import { NotFoundPage, ProblemPage } from "./pages/errors.js";
import { keyRoutes } from "./pages/keys.js";
import { messageRoutes } from "./pages/messages.js";
import { overviewRoutes } from "./pages/overview.js";
import { profileRoutes } from "./pages/profiles.js";
import { settingsRoutes } from "./pages/settings.js";
import { SignInPage, type SignInState } from "./pages/sign-in.js";
import { suppressionRoutes } from "./pages/suppressions.js";
import { webhookRoutes } from "./pages/webhooks.js";

export interface ConsoleOptions {
  /**
   * The path the console is mounted at, e.g. `/console` (the default): its links, redirects
   * and cookie path start with it. The handler itself receives paths without it.
   */
  basePath?: string | undefined;
  /** The address users reach the server at; an `https:` one makes the cookie `Secure`. */
  publicUrl?: string | undefined;
  /** Where unexpected failures are logged (default: `console`). */
  logger?: HttpLogger | undefined;
  /** The largest form accepted, in bytes (64 KiB). */
  maxBodyBytes?: number | undefined;
  /**
   * Whether the URL policy allows http and loopback webhook addresses (development mode), so
   * the forms say what they accept. Off by default.
   */
  devMode?: boolean | undefined;
}

/** The cookie that carries the session id. */
export const SESSION_COOKIE = "tidings_console";

const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

function normalizeBase(basePath: string | undefined): string {
  const path = basePath ?? "/console";
  if (path === "" || path === "/") return "";
  const trimmed = path.replace(/\/+$/, "");
  return trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
}

interface CompiledRoute extends PageRoute {
  segments: string[];
}

function match(
  routes: readonly CompiledRoute[],
  method: string,
  path: string,
): { route: CompiledRoute; params: Record<string, string> } | { allow: string[] } | null {
  const parts = path === "/" ? [] : path.slice(1).split("/");
  const allow: string[] = [];
  for (const route of routes) {
    if (route.segments.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const fits = route.segments.every((segment, i) => {
      const part = parts[i] ?? "";
      if (segment.startsWith(":")) {
        try {
          params[segment.slice(1)] = decodeURIComponent(part);
        } catch {
          return false;
        }
        return part !== "";
      }
      return segment === part;
    });
    if (!fits) continue;
    if (route.method === method || (route.method === "GET" && method === "HEAD")) {
      return { route, params };
    }
    allow.push(route.method);
  }
  return allow.length > 0 ? { allow } : null;
}

/** The section of the console a path belongs to; `null` for a path in none (an unknown page). */
const sectionOf = (path: string): Section | null => {
  const first = path.split("/")[1] ?? "";
  const sections: Record<string, Section> = {
    campaigns: "campaigns",
    messages: "messages",
    webhooks: "webhooks",
    deliveries: "webhooks",
    keys: "keys",
    profiles: "profiles",
    suppressions: "suppressions",
  };
  if (first === "") return "overview";
  return sections[first] ?? null;
};

/**
 * The web console as a framework-neutral `handle(request) → response`, the shape of the REST
 * API's app, so `createRequestListener(console, { prefix: "/console" })` mounts it anywhere.
 * Every page but sign-in needs a session; every POST needs the session's CSRF token.
 */
export function createConsole(deps: Deps, options: ConsoleOptions = {}): HttpApp {
  const base = normalizeBase(options.basePath);
  const logger: HttpLogger = options.logger ?? console;
  const secure = options.publicUrl?.startsWith("https:") === true;
  const cookiePath = base === "" ? "/" : base;
  const routes: CompiledRoute[] = [
    ...overviewRoutes,
    ...campaignRoutes,
    ...messageRoutes,
    ...webhookRoutes,
    ...keyRoutes,
    ...profileRoutes,
    ...suppressionRoutes,
    ...settingsRoutes,
  ].map((route) => ({
    ...route,
    segments: route.pattern === "/" ? [] : route.pattern.slice(1).split("/"),
  }));

  const sessionCookie = (value: string, maxAge?: number) =>
    [
      `${SESSION_COOKIE}=${value}`,
      `Path=${cookiePath}`,
      "HttpOnly",
      "SameSite=Strict",
      ...(secure ? ["Secure"] : []),
      ...(maxAge === undefined ? [] : [`Max-Age=${maxAge}`]),
    ].join("; ");

  const signInPage = (status: number, state: SignInState, headers?: Record<string, string>) =>
    renderPage(status, <SignInPage base={base} state={state} />, headers);

  /** A POST sent by a page of another site, which SameSite and CSRF refuse anyway. */
  const crossSite = (request: ConsoleRequest) =>
    header(request.headers, "sec-fetch-site") === "cross-site";

  async function handleSignIn(request: ConsoleRequest): Promise<HttpResponse> {
    if (request.method === "POST") {
      const token = request.form.get("token") ?? "";
      const signedIn = crossSite(request) ? null : await signIn(deps, token);
      if (!signedIn) return signInPage(401, { kind: "invalid_link" });
      return redirect(base === "" ? "/" : base, {
        "set-cookie": sessionCookie(signedIn.sessionId),
      });
    }
    const token = request.query.get("token") ?? "";
    if (!(await isSignInTokenValid(deps, token))) return signInPage(401, { kind: "invalid_link" });
    return signInPage(200, { kind: "ready", token });
  }

  async function handleSignedIn(
    request: ConsoleRequest,
    sessionId: string,
    session: ConsoleSession,
  ): Promise<HttpResponse> {
    const organization = await deps.storage.organizations.get(session.organizationId);
    const frame: PageFrame = {
      base,
      csrfToken: session.csrfToken,
      organization: {
        id: session.organizationId,
        name: organization?.name ?? session.organizationId,
      },
      notice: noticeOf(request),
      devMode: options.devMode === true,
    };
    const section = sectionOf(request.path);
    const notFound = () => renderPage(404, <NotFoundPage frame={frame} section={section} />);
    if (request.method === "POST") {
      const csrf = request.form.get("csrf_token");
      if (crossSite(request) || !isCsrfToken(sessionId, csrf)) {
        return renderPage(
          403,
          <ProblemPage
            frame={frame}
            section={section}
            title="Form refused"
            message="This form was not sent from this console, or its page is too old. Nothing was changed. Open the page again and retry."
          />,
        );
      }
      if (request.path === "/sign-out") {
        await signOut(deps, sessionId);
        return signInPage(200, { kind: "signed_out" }, { "set-cookie": sessionCookie("", 0) });
      }
    }
    const found = match(routes, request.method, request.path);
    if (found === null) return notFound();
    if ("allow" in found) {
      // Typically the address of a button's form, opened again in a new tab.
      return renderPage(
        405,
        <ProblemPage
          frame={frame}
          section={section}
          title="Nothing to show here"
          message="This address only takes the form of a button; open the page the button is on and press it there."
        />,
        { allow: found.allow.join(", ") },
      );
    }
    const context: PageContext = {
      deps,
      request,
      frame,
      actor: { organizationId: session.organizationId, apiKeyId: null, via: "console" },
      id: found.params.id ?? "",
      notFound,
    };
    return found.route.handle(context);
  }

  async function route(request: ConsoleRequest): Promise<HttpResponse> {
    if (request.method === "GET" || request.method === "HEAD") {
      const asset = /^\/assets\/([a-z-]+\.(?:css|js|svg))$/.exec(request.path);
      if (asset) {
        const found = readAsset(asset[1] ?? "");
        if (found) return assetResponse(found.contentType, found.body);
      }
    }
    if (request.path === "/sign-in") return handleSignIn(request);
    const sessionId = request.cookies.get(SESSION_COOKIE) ?? "";
    const session = sessionId === "" ? null : await resumeSession(deps, sessionId);
    if (!session) {
      if (request.method === "POST" && request.path === "/sign-out") {
        return signInPage(200, { kind: "signed_out" }, { "set-cookie": sessionCookie("", 0) });
      }
      return signInPage(401, { kind: "signed_out_visit" });
    }
    return handleSignedIn(request, sessionId, session);
  }

  const finish = (method: string, response: HttpResponse): HttpResponse => {
    response.headers["content-length"] = String(Buffer.byteLength(response.body));
    return method === "HEAD" ? { ...response, body: "" } : response;
  };

  return {
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    async handle(raw: HttpRequest): Promise<HttpResponse> {
      const request = parseRequest(raw);
      if (!request) return finish(raw.method, htmlResponse(400, "Bad request"));
      try {
        return finish(request.method, await route(request));
      } catch (error) {
        if (isStorageUnavailable(error) || error instanceof StorageBusyError) {
          // The API's app logs the outage once; a page only says to come back shortly.
          const page =
            "<!doctype html><title>Unavailable</title><p>The database is unavailable for now; nothing was changed. Try again in a moment.</p>";
          return finish(request.method, htmlResponse(503, page, { "retry-after": "1" }));
        }
        logger.error("console request failed", { method: raw.method, path: request.path, error });
        return finish(
          request.method,
          htmlResponse(
            500,
            "<!doctype html><title>Error</title><p>Something went wrong; it was logged.</p>",
          ),
        );
      }
    },
    refuse(_request, reason): HttpResponse {
      return reason === "payload_too_large"
        ? htmlResponse(413, "<!doctype html><title>Too large</title><p>The form is too large.</p>")
        : htmlResponse(404, "<!doctype html><title>Not found</title><p>Not found.</p>");
    },
  };
}
