import { findLink, VIBER_MAX_PARAM_LENGTH } from "@tidings/core";

/** The shop's Viber campaign: Transactional, so no param may hold a link (docs/decisions.md). */
export const SHIPPING_CAMPAIGN = {
  channel: "viber",
  category: "transactional",
  template: "Hi {{name}}, order {{order}} is on its way. Track it in the app.",
} as const;

export interface Order {
  number: string;
  /** Whatever the customer typed as their name: it may hold anything, links included. */
  customerName: string;
}

const codePoints = (text: string): string[] => [...text];

/**
 * The integration code under test: turns an order into the campaign's params. A name Tidings
 * would refuse (a link in it, or too long) is replaced, so a shipping notice never bounces
 * because of what a customer typed.
 */
export function shippingParams(order: Order): Record<string, string> {
  const name = order.customerName.trim();
  const usable =
    name !== "" && findLink(name) === null && codePoints(name).length <= VIBER_MAX_PARAM_LENGTH;
  return { name: usable ? name : "there", order: order.number };
}
