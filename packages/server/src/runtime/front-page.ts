import type { HttpApp, HttpRequest, HttpResponse } from "@tidings/adapter-http";
import serverPackage from "../../package.json" with { type: "json" };

/** Where the documentation lives: the project's README, which links every guide. */
export const DOCS_URL = serverPackage.homepage;

/** What `/` points at: the console (when mounted), the API's description, health, docs. */
export interface FrontPageLinks {
  /** The console's path, `null` when it is not mounted. */
  console: string | null;
}

const header = (request: HttpRequest, name: string): string => {
  const value = Object.entries(request.headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return (Array.isArray(value) ? value.join(",") : value) ?? "";
};

const linkList = (links: ReadonlyArray<readonly [string, string, string]>) =>
  links.map(([href, label, what]) => `<li><a href="${href}">${label}</a>: ${what}</li>`).join("\n");

/** The small page a person gets on opening the server's address in a browser. */
function page(links: FrontPageLinks): string {
  const items: Array<readonly [string, string, string]> = [
    ...(links.console === null
      ? []
      : [
          [
            links.console,
            "The console",
            "messages, webhooks, campaigns and keys; sign in with the link " +
              "<code>tidings console link --org ORG</code> prints",
          ] as const,
        ]),
    ["/openapi.json", "/openapi.json", "the REST API, described in OpenAPI 3.1"],
    ["/healthz", "/healthz", "whether this process is up"],
    [DOCS_URL, "The documentation", "the quickstart, the API guide and running in production"],
  ];
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tidings</title></head>
<body>
<h1>Tidings ${serverPackage.version}</h1>
<p>This is the Tidings server. The REST API is under <code>/v1</code>; a request needs an API key
(<code>tidings keys create</code>).</p>
<ul>
${linkList(items)}
</ul>
${links.console === null ? "<p>The console is turned off (<code>TIDINGS_CONSOLE=0</code>).</p>\n" : ""}</body>
</html>
`;
}

/**
 * The app with `GET /` in front: a small HTML page for a browser pointing at the console, the
 * OpenAPI document and the docs, and the same links as JSON for any other client, instead of
 * a 404. Every other request goes to `app`.
 */
export function withFrontPage(app: HttpApp, links: FrontPageLinks): HttpApp {
  return {
    ...app,
    async handle(request) {
      const method = request.method.toUpperCase();
      const path = request.url.split("?", 1)[0];
      if (method !== "GET" && method !== "HEAD") return app.handle(request);
      // Browsers ask for it on every page: the console's icon, or nothing, rather than a 404.
      if (path === "/favicon.ico") {
        return links.console === null
          ? { status: 204, headers: { "cache-control": "max-age=86400" }, body: "", route: path }
          : {
              status: 301,
              headers: {
                location: `${links.console}/assets/icon.svg`,
                "cache-control": "max-age=86400",
              },
              body: "",
              route: path,
            };
      }
      if (path !== "/") return app.handle(request);
      const html = header(request, "accept").includes("text/html");
      const body = html
        ? page(links)
        : `${JSON.stringify({
            name: "tidings",
            version: serverPackage.version,
            console: links.console,
            openapi: "/openapi.json",
            health: "/healthz",
            docs: DOCS_URL,
          })}\n`;
      const answer: HttpResponse = {
        status: 200,
        headers: {
          "content-type": html ? "text/html; charset=utf-8" : "application/json",
          "cache-control": "no-store",
          "content-security-policy": "default-src 'none'",
          "x-content-type-options": "nosniff",
          vary: "Accept",
        },
        body: method === "HEAD" ? "" : body,
        route: "/",
      };
      return answer;
    },
  };
}
