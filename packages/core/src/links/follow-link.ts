import type { Deps } from "../deps.js";
import { advanceWithin } from "../messages/lifecycle.js";
import { isoAt } from "../support/clock.js";
import { inSpan, SPAN_ATTRIBUTES } from "../support/tracing.js";
import { isLinkCode } from "./link-code.js";
import { isTrackableUrl } from "./tracked-text.js";

/** Where a short link goes, or that it is unknown (never was, or swept with its message). */
export type FollowedLink =
  | {
      kind: "redirect";
      /** The stored URL, serialized as a `Location` header may carry it. */
      location: string;
      /** Whether this visit was counted as a click. */
      counted: boolean;
      /** Whether this click recorded the message's `message.clicked`. */
      clicked: boolean;
    }
  | { kind: "unknown" };

const UNKNOWN: FollowedLink = { kind: "unknown" };

/** The stored URL as a redirect may send it, or `null` for one that should never have been stored. */
function redirectTarget(originalUrl: string): string | null {
  return isTrackableUrl(originalUrl) ? new URL(originalUrl).href : null;
}

/**
 * Follows a short link: the stored URL it stands for, never anything else. A counted visit
 * adds a click to the link and, in the same transaction, moves its message to `clicked`
 * through the lifecycle as a provider's report would: forward only, so only the first counted
 * click of any of the message's links records `message.clicked`, and a later `delivered` is
 * ignored. An uncounted visit (a HEAD, a link-preview fetcher) only reads. A code of the wrong
 * shape is unknown without a lookup.
 */
export function followLink(
  deps: Pick<Deps, "storage" | "ids" | "clock" | "telemetry">,
  code: string,
  counted: boolean,
): Promise<FollowedLink> {
  return inSpan("followLink", { [SPAN_ATTRIBUTES.useCase]: "followLink" }, async () => {
    if (!isLinkCode(code)) return UNKNOWN;
    if (!counted) {
      const link = await deps.storage.links.get(code);
      const location = link === null ? null : redirectTarget(link.originalUrl);
      if (location === null) return UNKNOWN;
      deps.telemetry?.linkFollowed?.(false);
      return { kind: "redirect", location, counted: false, clicked: false };
    }
    const followed = await deps.storage.transaction(async (tx): Promise<FollowedLink> => {
      const at = isoAt(deps.clock.now());
      const found = await tx.links.get(code);
      const location = found === null ? null : redirectTarget(found.originalUrl);
      if (found === null || location === null) return UNKNOWN;
      // The message first, then the link: the retention sweep locks a message before its links,
      // so the other order could deadlock with it. A message swept meanwhile is unknown.
      const advance = await advanceWithin(tx, deps, found.messageId, "clicked");
      if (advance.kind === "not_found") return UNKNOWN;
      if ((await tx.links.recordClick(code, at)) === null) return UNKNOWN;
      return { kind: "redirect", location, counted: true, clicked: advance.kind === "applied" };
    });
    if (followed.kind === "redirect") deps.telemetry?.linkFollowed?.(true);
    return followed;
  });
}
