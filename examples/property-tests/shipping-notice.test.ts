// Property tests of one's own integration with the arbitraries of @tidings/core/testing.
//   pnpm exec vitest run examples/property-tests
import { validateParams } from "@tidings/core";
import { embedInProse, hideLink, linkArbitrary, proseArbitrary } from "@tidings/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SHIPPING_CAMPAIGN, shippingParams } from "./shipping-notice.js";

const anyName = fc.oneof(
  proseArbitrary,
  fc.string({ maxLength: 300 }),
  embedInProse(linkArbitrary),
  embedInProse(linkArbitrary.chain(hideLink)),
);
const orderNumber = fc.stringMatching(/^[A-Z]{2}-[0-9]{4,8}$/);

describe("shippingParams", () => {
  it("always produces params Tidings accepts, whatever the customer typed as a name", () => {
    fc.assert(
      fc.property(anyName, orderNumber, (customerName, number) => {
        const checked = validateParams(SHIPPING_CAMPAIGN, shippingParams({ number, customerName }));
        expect(checked.isOk() ? [] : checked.error).toEqual([]);
      }),
    );
  });

  it("keeps an ordinary name as typed", () => {
    fc.assert(
      fc.property(proseArbitrary, orderNumber, (customerName, number) => {
        fc.pre(customerName.trim() !== "");
        expect(shippingParams({ number, customerName }).name).toBe(customerName.trim());
      }),
    );
  });
});
