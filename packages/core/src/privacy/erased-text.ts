/** What takes an erased value's place inside a text that is kept (an error's sentence). */
export const ERASED = "[erased]";

/**
 * A stored phone number as views and event bodies show it: `null` once erased (storage keeps
 * the empty string where the column cannot be null; no valid number is empty).
 */
export const shownPhone = (phoneNumber: string): string | null =>
  phoneNumber === "" ? null : phoneNumber;

/**
 * The forms of a person's identifiers a kept text may quote them in: each as given, and a
 * phone number also without its `+` (providers often quote it so). Empty values are left out.
 */
export function erasableForms(values: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const value of values) {
    if (value === "") continue;
    forms.add(value);
    if (/^\+\d+$/.test(value)) forms.add(value.slice(1));
  }
  // The longest first, so "+33…" goes whole before its digits would leave a stray "+".
  return [...forms].sort((a, b) => b.length - a.length);
}

/** `text` with every occurrence of each of `forms` (see `erasableForms`) replaced by `ERASED`. */
export function withoutValues(text: string, forms: readonly string[]): string {
  let out = text;
  for (const form of forms) {
    if (form !== "" && out.includes(form)) out = out.split(form).join(ERASED);
  }
  return out;
}

/**
 * A JSON value with each string that is one of `forms` replaced by `null` (a field that held
 * the number, such as an event body's `recipient.phone_number`) and each string quoting one
 * with it taken out (an error's sentence).
 */
export function withoutValuesInJson(value: unknown, forms: readonly string[]): unknown {
  if (typeof value === "string") {
    return forms.includes(value) ? null : withoutValues(value, forms);
  }
  if (Array.isArray(value)) return value.map((item) => withoutValuesInJson(item, forms));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, withoutValuesInJson(item, forms)]),
    );
  }
  return value;
}

/** Whether `text` quotes any of `forms`. */
export const quotesAny = (text: string, forms: readonly string[]): boolean =>
  forms.some((form) => form !== "" && text.includes(form));
