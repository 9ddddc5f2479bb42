import * as v from "valibot";

/** Unicode code points, so an emoji or a CJK character counts once (docs/decisions.md "Character counting"). */
export const codePointLength = (text: string): number => {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
};

/** A check that text is `min` to `max` code points long, in a valibot pipe. */
export const lengthBetween = (min: number, max: number) =>
  v.check<string, string>((text) => {
    const length = codePointLength(text);
    return length >= min && length <= max;
  }, `must be ${min} to ${max} characters long.`);
