import fc from "fast-check";
import type { ProfileListQuery, ProfileRecord } from "../../ports.js";
import { aProfile, at } from "../contract/fixtures.js";
import { always, has, Operation } from "./operation.js";
import { EMAILS, ORGS, orgLabel, PHONES, pick } from "./values.js";
import type { Model, Side } from "./world.js";
import { seqOf } from "./world.js";

/** `afterSeq` for a cursor drawn as `n`: before everything, or after one profile seen so far. */
function cursorOf(model: Model, n: number | undefined): (side: Side) => number | undefined {
  if (n === undefined) return () => undefined;
  const k = n % (model.profiles.length + 1);
  const after = model.profiles[k - 1];
  return (side) => (after === undefined ? 0 : seqOf(side, after.id));
}

const insert = fc
  .record({
    org: fc.nat(1),
    phone: fc.nat(2),
    email: fc.nat(3),
    viber: fc.boolean(),
    t: fc.nat(50),
  })
  .map(({ org, phone, email, viber, t }) => {
    const profile = aProfile({
      organizationId: pick(ORGS, org),
      phoneNumber: pick(PHONES, phone),
      email: pick(EMAILS, email),
      viberMarketingConsent: viber,
      createdAt: at(t),
      updatedAt: at(t),
    });
    return new Operation(
      `profiles.insert(${org}, ${profile.phoneNumber}, ${profile.email})`,
      always,
      () => (side) => side.repos.profiles.insert(profile),
      (model, answer) => {
        if (typeof answer === "object") model.profiles.push(profile);
      },
    );
  });

const update = fc
  .record({
    n: fc.nat(),
    org: fc.option(fc.nat(1), { nil: undefined }),
    phone: fc.nat(2),
    email: fc.nat(3),
    sms: fc.boolean(),
    t: fc.nat(50),
  })
  .map(
    ({ n, org, phone, email, sms, t }) =>
      new Operation(
        `profiles.update(#${n}, org ${org ?? "own"}, ${pick(PHONES, phone)}, ${pick(EMAILS, email)})`,
        has("profiles"),
        async (model, storages) => {
          const { id } = pick(model.profiles, n);
          const stored = (await storages.reference.raw.profile(id)) as ProfileRecord;
          const changed: ProfileRecord = {
            ...stored,
            organizationId: org === undefined ? stored.organizationId : pick(ORGS, org),
            phoneNumber: pick(PHONES, phone),
            email: pick(EMAILS, email),
            smsMarketingConsent: sms,
            attributes: { n, vip: sms },
            updatedAt: at(t),
          };
          return (side) => side.repos.profiles.update({ ...changed, seq: seqOf(side, id) });
        },
      ),
  );

const softDelete = fc.record({ n: fc.nat(), org: fc.nat(1), t: fc.nat(50) }).map(
  ({ n, org, t }) =>
    new Operation(`profiles.softDelete(#${n}, org ${org})`, has("profiles"), (model) => {
      const { id } = pick(model.profiles, n);
      return (side) => side.repos.profiles.softDelete(pick(ORGS, org), id, at(t));
    }),
);

const get = fc.record({ n: fc.nat(), org: fc.nat(1) }).map(
  ({ n, org }) =>
    new Operation(`profiles.get(#${n}, org ${org})`, has("profiles"), (model) => {
      const { id } = pick(model.profiles, n);
      return (side) => side.repos.profiles.get(pick(ORGS, org), id);
    }),
);

const findByPhone = fc
  .record({ org: fc.nat(1), phone: fc.nat(2) })
  .map(
    ({ org, phone }) =>
      new Operation(
        `profiles.findByPhone(org ${org}, ${pick(PHONES, phone)})`,
        always,
        () => (side) => side.repos.profiles.findByPhone(pick(ORGS, org), pick(PHONES, phone)),
      ),
  );

const findByEmail = fc
  .record({
    org: fc.nat(1),
    email: fc.integer({ min: 1, max: 3 }),
    limit: fc.integer({ min: 1, max: 3 }),
  })
  .map(
    ({ org, email, limit }) =>
      new Operation(
        `profiles.findByEmail(org ${org}, ${pick(EMAILS, email)}, ${limit})`,
        always,
        () => (side) =>
          side.repos.profiles.findByEmail(pick(ORGS, org), pick(EMAILS, email) ?? "", limit),
      ),
  );

const listFilters = {
  org: fc.nat(1),
  phone: fc.option(fc.nat(2), { nil: undefined }),
  email: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
};

const queryOf = (q: { org: number; phone: number | undefined; email: number | undefined }) => ({
  organizationId: pick(ORGS, q.org),
  phoneNumber: q.phone === undefined ? undefined : pick(PHONES, q.phone),
  email: q.email === undefined ? undefined : (pick(EMAILS, q.email) ?? undefined),
});

const list = fc
  .record({
    ...listFilters,
    after: fc.option(fc.nat(), { nil: undefined }),
    limit: fc.integer({ min: 1, max: 4 }),
  })
  .map((q) => {
    const filters = queryOf(q);
    return new Operation(
      `profiles.list(${JSON.stringify({ ...filters, after: q.after, limit: q.limit })})`,
      always,
      (model) => {
        const afterSeq = cursorOf(model, q.after);
        return (side) =>
          side.repos.profiles.list({ ...filters, afterSeq: afterSeq(side), limit: q.limit });
      },
    );
  });

/**
 * Pages through a whole list the way the core does: one extra row, the last seq as cursor.
 * Every page but the last is full, so `maxPages` (one more than the profiles there can be) is
 * never reached by a correct storage; one that ignores the cursor would page forever, on promise
 * callbacks that never let a test's timeout fire, so it ends with a marker that fails the check.
 */
async function allPages(
  side: Side,
  query: Omit<ProfileListQuery, "limit">,
  size: number,
  maxPages: number,
) {
  const pages: string[][] = [];
  let afterSeq: number | undefined;
  while (pages.length < maxPages) {
    const rows = await side.repos.profiles.list({ ...query, afterSeq, limit: size + 1 });
    const page = rows.slice(0, size);
    pages.push(page.map((p) => p.id));
    const last = page.at(-1);
    if (rows.length <= size || last === undefined) return pages;
    afterSeq = last.seq;
  }
  return [...pages, [`paging did not end after ${maxPages} pages: is the cursor ignored?`]];
}

const pageThrough = fc.record({ ...listFilters, size: fc.integer({ min: 1, max: 3 }) }).map((q) => {
  const filters = queryOf(q);
  return new Operation(
    `profiles.list pages(org ${orgLabel(filters.organizationId)}, size ${q.size})`,
    always,
    (model) => {
      const maxPages = model.profiles.length + 1;
      return (side) => allPages(side, filters, q.size, maxPages);
    },
  );
});

/** Random operations on profiles: writes, lookups, filtered lists and cursor paging. */
export const profileOperations = [
  insert,
  insert,
  update,
  softDelete,
  get,
  findByPhone,
  findByEmail,
  list,
  pageThrough,
];
