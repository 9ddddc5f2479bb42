import { readFileSync } from "node:fs";

const TYPES: Record<string, string> = {
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  svg: "image/svg+xml; charset=utf-8",
};

const cache = new Map<string, { contentType: string; body: string } | null>();

/**
 * A file of the package's `assets/` folder (beside the sources in development, beside the
 * built module in `dist/`), read once; `null` when there is none.
 */
export function readAsset(name: string): { contentType: string; body: string } | null {
  if (cache.has(name)) return cache.get(name) ?? null;
  const type = TYPES[name.split(".").pop() ?? ""];
  let found: { contentType: string; body: string } | null = null;
  if (type !== undefined) {
    try {
      found = {
        contentType: type,
        body: readFileSync(new URL(`./assets/${name}`, import.meta.url), "utf8"),
      };
    } catch {
      found = null;
    }
  }
  cache.set(name, found);
  return found;
}
