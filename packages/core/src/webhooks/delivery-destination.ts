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
 * The destination a delivery counts against for concurrency, fairness and the circuit breaker:
 * the organization and the origin (scheme, host, port) of the URL it goes to, so many
 * deliveries to one slow host share its slots whatever their paths or subscriptions, and one
 * organization's dead host never holds up another organization's deliveries to it.
 */
export function destinationKey(organizationId: string, url: string): string {
  let origin = "null";
  try {
    origin = new URL(url).origin;
  } catch {
    // Stored URLs were checked when accepted; an unparsable one stays a destination of its own.
  }
  // Only schemes without an origin (never http or https) answer "null"; keep them apart.
  return `${organizationId} ${origin === "null" ? url : origin}`;
}
