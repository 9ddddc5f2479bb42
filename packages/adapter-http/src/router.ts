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

/** The path's parameters when `parts` fit the template, else `null`. */
function matchPath(compiled: CompiledPath, parts: readonly string[]) {
  const { segments } = compiled;
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index]!;
    if ("literal" in segment && segment.literal !== parts[index]) return null;
  }
  const params: Record<string, string> = {};
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index]!;
    if ("literal" in segment) continue;
    const value = decodeSegment(parts[index]!);
    if (value === null || value === "") return null;
    params[segment.param] = value;
  }
  return params;
}

/** The `Allow` list of a template's methods: HEAD follows GET, which answers it too. */
const allowed = (methods: readonly string[]): string[] =>
  methods.flatMap((method) => (method === "GET" ? ["GET", "HEAD"] : [method]));

/** One path template with the routes registered on it, in the order they were given. */
interface Template<R> {
  path: CompiledPath;
  routes: R[];
}

/**
 * A route table. A path matches the most specific template first (fewest parameters), so a
 * literal segment such as `test` is never captured as an id; a known path with another method
 * is a 405 listing the methods of that template. The caller routes HEAD as GET.
 *
 * Templates are grouped by how many segments they have and tried fewest parameters first, so a
 * request looks only at templates of its own length and stops at the first that fits.
 */
export function createRouter<R extends Routable>(routes: readonly R[]) {
  const templates = new Map<string, Template<R>>();
  for (const route of routes) {
    const known = templates.get(route.path);
    if (known === undefined)
      templates.set(route.path, { path: compile(route.path), routes: [route] });
    else known.routes.push(route);
  }
  const byLength = new Map<number, Template<R>[]>();
  for (const template of templates.values()) {
    const length = template.path.segments.length;
    byLength.set(length, [...(byLength.get(length) ?? []), template]);
  }
  // Stable: templates with as many parameters keep the order they were given in.
  for (const list of byLength.values()) list.sort((a, b) => a.path.params - b.path.params);
  return {
    match(method: string, path: string): Match<R> {
      const parts = path.split("/").slice(1);
      for (const template of byLength.get(parts.length) ?? []) {
        const params = matchPath(template.path, parts);
        if (params === null) continue;
        const route = template.routes.find((entry) => entry.method === method);
        if (route !== undefined) return { kind: "found", route, params };
        return {
          kind: "method_not_allowed",
          allow: allowed(template.routes.map((entry) => entry.method)),
          template: template.path.template,
        };
      }
      return { kind: "not_found" };
    },
  };
}
