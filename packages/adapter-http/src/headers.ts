/** Request headers as node:http hands them, names in any case. */
export type RequestHeaders = Record<string, string | string[] | undefined>;

/**
 * One header's value, looked up case-insensitively. A repeated header yields its first value,
 * which is what the single-valued headers read here (Authorization, Content-Type…) expect.
 */
export function headerValue(headers: RequestHeaders, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}
