import { err, ok, type Result } from "neverthrow";
import type { ConflictError } from "../errors.js";
import type { ProfileRecord } from "../ports.js";

/**
 * A profile synchronized from a connected Shopify or WooCommerce store is owned by that store:
 * the API may not change or delete it (docs/decisions.md "Profile source").
 */
export function checkModifiable(profile: ProfileRecord): Result<ProfileRecord, ConflictError> {
  if (profile.source !== "shopify" && profile.source !== "woocommerce") return ok(profile);
  return err({
    type: "conflict",
    code: "profile_protected",
    message: `The profile originates from a connected ${profile.source === "shopify" ? "Shopify" : "WooCommerce"} store and cannot be modified through the API.`,
  });
}
