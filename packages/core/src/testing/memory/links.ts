import type { LinkRepository } from "../../ports.js";
import type { MemoryScope } from "./scope.js";
import { storeNew } from "./state.js";

/** Tracked links in memory. */
export function memoryLinks(scope: MemoryScope): LinkRepository {
  return {
    insertMany: (links) =>
      scope.write("links.insertMany", (s) => {
        // All or none, as one SQL statement would: every code is checked before any is stored.
        const codes = new Set(links.map((link) => link.code));
        if (codes.size < links.length || links.some((link) => s.links.has(link.code))) {
          throw new Error("memory storage: duplicate link code");
        }
        for (const link of links) {
          const record = { ...link, clicks: 0, firstClickedAt: null, lastClickedAt: null };
          storeNew(s.links, link.code, record, "link");
        }
      }),
    get: (code) => scope.read("links.get", (s) => s.links.get(code) ?? null),
    listForMessage: (organizationId, messageId) =>
      scope.read("links.listForMessage", (s) =>
        [...s.links.values()].filter(
          (link) => link.organizationId === organizationId && link.messageId === messageId,
        ),
      ),
    listForMessages: (organizationId, messageIds) =>
      scope.read("links.listForMessages", (s) => {
        const wanted = new Set(messageIds);
        return [...s.links.values()].filter(
          (link) => link.organizationId === organizationId && wanted.has(link.messageId),
        );
      }),
    recordClick: (code, at) =>
      scope.write("links.recordClick", (s) => {
        const link = s.links.get(code);
        if (link === undefined) return null;
        const clicked = {
          ...link,
          clicks: link.clicks + 1,
          firstClickedAt: link.firstClickedAt ?? at,
          lastClickedAt: at,
        };
        s.links.set(code, clicked);
        return clicked;
      }),
  };
}
