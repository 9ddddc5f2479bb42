import type { Attributes, AttributeValue } from "../ports.js";

/** Applies an attributes patch: a key set to null is removed, others are set (docs/decisions.md). */
export function mergeAttributes(
  current: Attributes,
  patch: Record<string, AttributeValue | null> | undefined,
): Attributes {
  if (!patch) return current;
  const merged: Attributes = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/** Whether the merged attributes stay within the 50-key limit. */
export const withinAttributeLimit = (attributes: Attributes): boolean =>
  Object.keys(attributes).length <= 50;
