/**
 * The small value pools the model draws from: few organizations, phone numbers, emails and
 * names, so random operations collide often (uniqueness, scoping, case-insensitive matches).
 */

export const ORGS = ["org_0000000000000000000000000a", "org_0000000000000000000000000b"] as const;
export const PHONES = ["+306900000001", "+306900000002", "+306900000003"] as const;
export const EMAILS = [null, "jo@example.com", "JO@Example.com", "al@example.com"] as const;
export const LIST_NAMES = ["VIP", "Newsletter", "vip"] as const;
export const OWNERS = ["engine-a", "engine-b"] as const;
export const MESSAGE_STATUSES = ["sent", "delivered", "seen", "failed", "expired"] as const;
export const URLS = ["https://a.example.com/hook", "https://b.example.com/hook"] as const;

/** The `n`th item, wrapping around, so any natural number picks an item. */
export const pick = <T>(items: readonly T[], n: number): T => items[n % items.length] as T;

/** The last character of an organization id, to keep operation labels short. */
export const orgLabel = (organizationId: string): string => organizationId.slice(-1);
