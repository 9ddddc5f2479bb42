/** A route's path template, e.g. `/v1/profiles/{public_id}`, split into its segments. */
interface CompiledPath {
  template: string;
  segments: Array<{ literal: string } | { param: string }>;
  /** How many parameters it has; fewer wins, so `/v1/webhooks/test` beats `{webhook_id}`. */
  params: number;
}

/** What a route table entry must have for matching. */
export interface Routable {
  method: string;
  path: string;
}

export type Match<R> =
  | { kind: "found"; route: R; params: Record<string, string> }
  | { kind: "method_not_allowed"; allow: string[]; template: string }
  | { kind: "not_found" };

function compile(template: string): CompiledPath {
  const segments = template
    .split("/")
    .slice(1)
    .map((part) => {
      const param = /^\{([a-z_]+)\}$/.exec(part)?.[1];
      return param === undefined ? { literal: part } : { param };
    });
  return { template, segments, params: segments.filter((s) => "param" in s).length };
}

/** Percent-decodes one path segment; `null` when it is not valid percent-encoding. */
function decodeSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

function matchPath(compiled: CompiledPath, parts: readonly string[]) {
  if (compiled.segments.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (const [index, segment] of compiled.segments.entries()) {
    const part = parts[index] ?? "";
    if ("literal" in segment) {
      if (segment.literal !== part) return null;
    } else {
      const value = decodeSegment(part);
      if (value === null || value === "") return null;
      params[segment.param] = value;
    }
  }
  return params;
}

/** The `Allow` list of a template's methods: HEAD follows GET, which answers it too. */
const allowed = (methods: readonly string[]): string[] =>
  methods.flatMap((method) => (method === "GET" ? ["GET", "HEAD"] : [method]));

/**
 * A route table. A path matches the most specific template first (fewest parameters), so a
 * literal segment such as `test` is never captured as an id; a known path with another method
 * is a 405 listing the methods of that template. The caller routes HEAD as GET.
 */
export function createRouter<R extends Routable>(routes: readonly R[]) {
  const compiled = routes.map((route) => ({ route, path: compile(route.path) }));
  return {
    match(method: string, path: string): Match<R> {
      const parts = path.split("/").slice(1);
      const candidates = compiled
        .map((entry) => ({ ...entry, params: matchPath(entry.path, parts) }))
        .filter((entry) => entry.params !== null);
      if (candidates.length === 0) return { kind: "not_found" };
      const fewest = Math.min(...candidates.map((entry) => entry.path.params));
      // Some candidate has the fewest parameters: there is at least one.
      const template = candidates.find((entry) => entry.path.params === fewest)!.path.template;
      const sameTemplate = candidates.filter((entry) => entry.path.template === template);
      const found = sameTemplate.find((entry) => entry.route.method === method);
      if (found?.params) return { kind: "found", route: found.route, params: found.params };
      return {
        kind: "method_not_allowed",
        allow: allowed(sameTemplate.map((e) => e.route.method)),
        template,
      };
    },
  };
}
