import type { HttpApp, HttpRequest } from "@tidings/adapter-http";

/** An app served under a path prefix such as `/console`. */
export interface Mount {
  prefix: string;
  app: HttpApp;
}

/** The request target without `prefix`, or `null` when it is outside it. */
function under(url: string, prefix: string): string | null {
  if (url === prefix) return "/";
  if (url.startsWith(`${prefix}/`)) return url.slice(prefix.length);
  if (url.startsWith(`${prefix}?`)) return `/${url.slice(prefix.length)}`;
  return null;
}

const sizeOf = (body: HttpRequest["body"]): number =>
  body === undefined ? 0 : typeof body === "string" ? Buffer.byteLength(body) : body.byteLength;

/**
 * One app that hands each request under a mount's prefix to that mount (prefix removed) and
 * every other request to `root`. A mount's own body limit holds even though the listener reads
 * up to the largest one.
 */
export function withMounts(root: HttpApp, mounts: readonly Mount[]): HttpApp {
  const find = (url: string) => {
    for (const mount of mounts) {
      const rest = under(url, mount.prefix);
      if (rest !== null) return { app: mount.app, url: rest, prefix: mount.prefix };
    }
    return null;
  };
  return {
    maxBodyBytes: Math.max(root.maxBodyBytes, ...mounts.map((mount) => mount.app.maxBodyBytes)),
    async handle(request) {
      const found = find(request.url);
      if (!found) return root.handle(request);
      const inner = { ...request, url: found.url };
      if (sizeOf(request.body) > found.app.maxBodyBytes) {
        return found.app.refuse(inner, "payload_too_large");
      }
      const response = await found.app.handle(inner);
      // One route label for a whole mount: its pages' paths hold ids.
      response.route ??= `${found.prefix}/*`;
      return response;
    },
    refuse(request, reason) {
      const found = find(request.url);
      return found
        ? found.app.refuse({ ...request, url: found.url }, reason)
        : root.refuse(request, reason);
    },
  };
}
