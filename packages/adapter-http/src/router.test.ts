import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRouter, type Match, type Routable } from "./router.js";

const routes: Routable[] = [
  { method: "GET", path: "/v1/webhooks" },
  { method: "POST", path: "/v1/webhooks" },
  { method: "GET", path: "/v1/webhooks/{webhook_id}" },
  { method: "PATCH", path: "/v1/webhooks/{webhook_id}" },
  { method: "POST", path: "/v1/webhooks/test" },
  { method: "GET", path: "/v1/profiles/{public_id}" },
  { method: "GET", path: "/v1/profiles/{public_id}/consent/{channel}" },
];

describe("createRouter", () => {
  const router = createRouter(routes);

  it("finds a route and decodes its parameters", () => {
    expect(router.match("GET", "/v1/profiles/a%20b")).toEqual({
      kind: "found",
      route: routes[5],
      params: { public_id: "a b" },
    });
    expect(router.match("GET", "/v1/profiles/p1/consent/sms")).toMatchObject({
      kind: "found",
      params: { public_id: "p1", channel: "sms" },
    });
  });

  it("prefers a literal segment to a parameter, whatever the order of registration", () => {
    expect(router.match("POST", "/v1/webhooks/test")).toEqual({
      kind: "found",
      route: routes[4],
      params: {},
    });
    // `test` is a known path: GET on it is a 405, never the subscription called "test".
    expect(router.match("GET", "/v1/webhooks/test")).toEqual({
      kind: "method_not_allowed",
      allow: ["POST"],
      template: "/v1/webhooks/test",
    });
  });

  it("answers 405 with the template's methods, HEAD beside GET", () => {
    expect(router.match("DELETE", "/v1/webhooks/whk_1")).toEqual({
      kind: "method_not_allowed",
      allow: ["GET", "HEAD", "PATCH"],
      template: "/v1/webhooks/{webhook_id}",
    });
  });

  it("finds nothing for another length, an empty parameter or broken percent-encoding", () => {
    expect(router.match("GET", "/v1/profiles")).toEqual({ kind: "not_found" });
    expect(router.match("GET", "/v1/profiles/p1/consent")).toEqual({ kind: "not_found" });
    expect(router.match("GET", "/v1/profiles/")).toEqual({ kind: "not_found" });
    expect(router.match("GET", "/v1/profiles/%E0%A4%A")).toEqual({ kind: "not_found" });
    expect(router.match("GET", "/")).toEqual({ kind: "not_found" });
  });

  it("agrees with matching every template in turn, on any table and path", () => {
    const segment = fc.constantFrom("v1", "a", "b", "test", "%41", "%zz", "");
    const template = fc
      .array(fc.oneof(segment, fc.constantFrom("{x}", "{y}")), { minLength: 1, maxLength: 4 })
      .map((parts) => `/${parts.join("/")}`);
    const route = fc.record({ method: fc.constantFrom("GET", "POST", "PATCH"), path: template });
    const path = fc
      .array(segment, { minLength: 0, maxLength: 5 })
      .map((parts) => `/${parts.join("/")}`);
    fc.assert(
      fc.property(
        fc.array(route, { maxLength: 12 }),
        path,
        fc.constantFrom("GET", "POST"),
        (table, p, method) => {
          expect(createRouter(table).match(method, p)).toEqual(reference(table, method, p));
        },
      ),
      { numRuns: 500 },
    );
  });
});

/** The plain reading of the rules: try every route, keep those that fit, fewest parameters win. */
function reference(table: Routable[], method: string, path: string): Match<Routable> {
  const parts = path.split("/").slice(1);
  const fits = table.flatMap((route) => {
    const segments = route.path.split("/").slice(1);
    if (segments.length !== parts.length) return [];
    const params: Record<string, string> = {};
    for (const [index, segment] of segments.entries()) {
      const name = /^\{([a-z_]+)\}$/.exec(segment)?.[1];
      const part = parts[index]!;
      if (name === undefined) {
        if (segment !== part) return [];
        continue;
      }
      let value: string;
      try {
        value = decodeURIComponent(part);
      } catch {
        return [];
      }
      if (value === "") return [];
      params[name] = value;
    }
    return [{ route, params, count: segments.filter((s) => s.startsWith("{")).length }];
  });
  if (fits.length === 0) return { kind: "not_found" };
  const fewest = Math.min(...fits.map((fit) => fit.count));
  const template = fits.find((fit) => fit.count === fewest)!.route.path;
  const same = fits.filter((fit) => fit.route.path === template);
  const found = same.find((fit) => fit.route.method === method);
  if (found) return { kind: "found", route: found.route, params: found.params };
  const allow = same.flatMap((fit) =>
    fit.route.method === "GET" ? ["GET", "HEAD"] : [fit.route.method],
  );
  return { kind: "method_not_allowed", allow, template };
}
