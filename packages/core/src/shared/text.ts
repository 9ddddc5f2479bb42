/** Unicode code points, so an emoji or a CJK character counts once (docs/decisions.md "Character counting"). */
export const codePointLength = (text: string): number => {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
};
