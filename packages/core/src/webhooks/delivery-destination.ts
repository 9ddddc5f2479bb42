import type { DeliveryDestination, Repositories, SecretBox } from "../ports.js";

/** Where and with what secret one attempt goes, read fresh at the attempt. */
export type ResolvedDestination =
  | { kind: "ready"; url: string; secret: string }
  /** The destination no longer takes deliveries; the reason is logged on the attempt. */
  | { kind: "gone"; reason: string };

/** The reads that resolve a destination. */
export interface DestinationReads {
  webhooks: Pick<Repositories["webhooks"], "getById">;
  apiKeys: Pick<Repositories["apiKeys"], "get">;
}

/**
 * Resolves a delivery's destination to its current URL and signing secret, so a retry follows
 * a changed URL and a rotated secret. A subscription that was deleted or deactivated is gone;
 * a revoked API key is not: deliveries already owed to its messages still go out.
 */
export async function resolveDestination(
  repositories: DestinationReads,
  secretBox: SecretBox,
  destination: DeliveryDestination,
): Promise<ResolvedDestination> {
  if (destination.kind === "subscription") {
    const subscription = await repositories.webhooks.getById(destination.webhookId);
    if (!subscription) return { kind: "gone", reason: "The webhook subscription was deleted." };
    if (subscription.status !== "active") {
      return { kind: "gone", reason: "The webhook subscription is inactive." };
    }
    return {
      kind: "ready",
      url: subscription.url,
      secret: secretBox.open(subscription.secretSealed),
    };
  }
  const key = await repositories.apiKeys.get(destination.apiKeyId);
  if (!key) return { kind: "gone", reason: "The API key that sent the message no longer exists." };
  return {
    kind: "ready",
    url: destination.url,
    secret: secretBox.open(key.webhookSigningSecretSealed),
  };
}

/**
 * The key that per-destination concurrency is counted by, stored on each delivery: the
 * subscription's id, or `url:` and the origin (scheme, host, port) of a message's own
 * `webhook_url`, so many messages to one slow host share its slots whatever their paths.
 */
export function destinationKey(destination: DeliveryDestination): string {
  if (destination.kind === "subscription") return destination.webhookId;
  try {
    const { origin } = new URL(destination.url);
    // Only schemes without an origin (never http or https) answer "null"; keep them apart.
    return origin === "null" ? `url:${destination.url}` : `url:${origin}`;
  } catch {
    return `url:${destination.url}`;
  }
}
