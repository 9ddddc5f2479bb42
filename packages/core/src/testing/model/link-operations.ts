import fc from "fast-check";
import type { NewLink } from "../../ports.js";
import { at } from "../contract/fixtures.js";
import { has, Operation } from "./operation.js";
import { ORGS, pick } from "./values.js";

/** Few codes, so inserts often collide with a stored one (the whole call is then refused). */
const CODES = ["AAAAAAAAAAAA", "BBBBBBBBBBBB", "CCCCCCCCCCCC", "DDDDDDDDDDDD"] as const;
const ORIGINALS = ["https://a.example/x?t=1", "http://b.example/"] as const;

const byCode = <T extends { code: string }>(links: T[]): T[] =>
  [...links].sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));

const insertLinks = fc
  .record({
    n: fc.nat(),
    codes: fc.array(fc.nat(3), { minLength: 1, maxLength: 2 }),
    t: fc.nat(20),
  })
  .map(
    ({ n, codes, t }) =>
      new Operation(
        `links.insertMany(#${n}, [${codes.map((c) => pick(CODES, c)).join(", ")}])`,
        has("messages"),
        (model) => {
          const message = pick(model.messages, n);
          const links: NewLink[] = codes.map((c, i) => ({
            code: pick(CODES, c),
            messageId: message.id,
            organizationId: message.organizationId,
            originalUrl: pick(ORIGINALS, i + t),
            createdAt: at(t),
          }));
          return (side) => side.repos.links.insertMany(links);
        },
      ),
  );

const recordClick = fc.record({ code: fc.nat(3), t: fc.nat(40) }).map(
  ({ code, t }) =>
    new Operation(
      `links.recordClick(${pick(CODES, code)}, ${t})`,
      () => true,
      () => (side) => side.repos.links.recordClick(pick(CODES, code), at(t)),
    ),
);

const readLinks = fc.record({ n: fc.nat(), org: fc.nat(1) }).map(
  ({ n, org }) =>
    new Operation(`links reads(#${n}, org ${org})`, has("messages"), (model) => {
      const { id } = pick(model.messages, n);
      const organizationId = pick(ORGS, org);
      const others = model.messages.map((message) => message.id);
      return async (side) => [
        await Promise.all(CODES.map((code) => side.repos.links.get(code))),
        byCode(await side.repos.links.listForMessage(organizationId, id)),
        byCode(await side.repos.links.listForMessages(organizationId, others)),
      ];
    }),
);

/** Random operations on tracked links: a send's inserts, clicks and the reads of both views. */
export const linkOperations = [insertLinks, recordClick, readLinks];
