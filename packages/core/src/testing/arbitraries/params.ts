import fc from "fast-check";
import { parseTemplate } from "../../campaigns/template.js";
import { type ParamsCampaign, VIBER_MAX_PARAM_LENGTH } from "../../campaigns/viber-params.js";
import { embedGluedInProse, embedInProse, hideLink, linkArbitrary } from "./links.js";
import { proseArbitrary, word } from "./prose.js";

export {
  domainArbitrary,
  embedGluedInProse,
  embedInProse,
  glueLink,
  hideLink,
  linkArbitrary,
} from "./links.js";
export { gluedProseArbitrary, proseArbitrary } from "./prose.js";

const chars = (text: string): string[] => [...text];

function placeholdersOf(campaign: ParamsCampaign): string[] {
  const names = parseTemplate(campaign.template).match(
    (ok) => ok,
    (issues) => {
      throw new Error(
        `The campaign template is invalid: ${issues.map((i) => i.message).join(" ")}`,
      );
    },
  );
  return campaign.category === "otp" && !names.includes("pin") ? [...names, "pin"] : names;
}

const pinArbitrary: fc.Arbitrary<string | number> = fc.oneof(
  fc.string({ unit: fc.constantFrom(...chars("0123456789")), minLength: 4, maxLength: 8 }),
  fc.integer({ min: 0, max: 99_999_999 }),
  fc.string({
    unit: fc.constantFrom(...chars("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")),
    minLength: 6,
    maxLength: 6,
  }),
);

const valueArbitrary: fc.Arbitrary<string | number> = fc.oneof(
  { weight: 6, arbitrary: proseArbitrary },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
);

/** Params that pass `validateParams` for this campaign (values are link-free prose or numbers). */
export function validParamsFor(
  campaign: ParamsCampaign,
): fc.Arbitrary<Record<string, string | number>> {
  const names = placeholdersOf(campaign);
  const values = names.map((name) =>
    campaign.category === "otp" && name === "pin" ? pinArbitrary : valueArbitrary,
  );
  return fc
    .tuple(...values)
    .map((generated) => Object.fromEntries(generated.map((value, i) => [names[i], value])));
}

const wrongType = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.constant({ nested: "x" }),
  fc.constant(["x"]),
  fc.constant(Number.NaN),
);

/** Params that `validateParams` refuses for this campaign, each with at least one issue. */
export function invalidParamsFor(campaign: ParamsCampaign): fc.Arbitrary<unknown> {
  const names = placeholdersOf(campaign);
  const valid = validParamsFor(campaign);
  const someName = fc.constantFrom(...names);
  const withValue = (value: fc.Arbitrary<unknown>, name: fc.Arbitrary<string> = someName) =>
    fc.tuple(valid, name, value).map(([params, key, v]) => ({ ...params, [key]: v }));

  const options: Array<fc.Arbitrary<unknown>> = [
    fc.oneof(fc.constant(null), fc.array(fc.string()), fc.string(), fc.integer(), fc.boolean()),
    fc
      .tuple(valid, word("abcdefghijklmnopqrstuvwxyz_", 12), proseArbitrary)
      .filter(([, key]) => !names.includes(`unused_${key}`))
      .map(([params, key, v]) => ({ ...params, [`unused_${key}`]: v })),
  ];
  if (names.length > 0) {
    options.push(
      fc.tuple(valid, someName).map(([params, key]) => {
        const rest = { ...params };
        delete rest[key];
        return rest;
      }),
      withValue(wrongType),
    );
  }
  if (names.length > 0 && campaign.channel === "viber") {
    const tooLong = fc
      .tuple(fc.constantFrom("a", "я", "中", "😀"), fc.integer({ min: 1, max: 200 }))
      .map(([c, extra]) => c.repeat(VIBER_MAX_PARAM_LENGTH + extra));
    options.push(withValue(tooLong));
    if (campaign.category !== "promotional") {
      options.push(
        withValue(
          fc.oneof(
            embedInProse(fc.oneof(linkArbitrary, linkArbitrary.chain(hideLink))),
            embedGluedInProse(linkArbitrary),
          ),
        ),
      );
    }
  }
  if (campaign.category === "otp") {
    const blank = fc.constantFrom(
      "",
      "   ",
      "\t\n",
      null,
      "\u200B",
      "\uFEFF",
      "\u00A0",
      "\u2060\u3164",
    );
    options.push(withValue(blank, fc.constant("pin")));
  }
  return fc.oneof(...options);
}
