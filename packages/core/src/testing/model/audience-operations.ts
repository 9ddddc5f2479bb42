import fc from "fast-check";
import { aConsentChange, aContactList, aMembership, aProfile, at } from "../contract/fixtures.js";
import { always, has, Operation } from "./operation.js";
import { LIST_NAMES, ORGS, PHONES, pick } from "./values.js";
import type { Model } from "./world.js";

/** A profile of the list's organization, so memberships stay within one organization. */
const memberOf = (model: Model, list: { organizationId: string }, n: number) => {
  const candidates = model.profiles.filter((p) => p.organizationId === list.organizationId);
  return candidates.length === 0 ? undefined : pick(candidates, n);
};

const insertList = fc
  .record({ org: fc.nat(1), name: fc.nat(2), t: fc.nat(20) })
  .map(({ org, name, t }) => {
    const list = aContactList({
      organizationId: pick(ORGS, org),
      name: pick(LIST_NAMES, name),
      createdAt: at(t),
    });
    return new Operation(
      `contactLists.insert(org ${org}, ${list.name})`,
      always,
      () => (side) => side.repos.contactLists.insert(list),
      (model, answer) => {
        if (answer === undefined) model.lists.push(list);
      },
    );
  });

const readList = fc.record({ n: fc.nat(), org: fc.nat(1), name: fc.nat(2) }).map(
  ({ n, org, name }) =>
    new Operation(`contactLists reads(#${n}, org ${org})`, has("lists"), (model) => {
      const { id } = pick(model.lists, n);
      const organizationId = pick(ORGS, org);
      return async (side) => [
        await side.repos.contactLists.get(organizationId, id),
        await side.repos.contactLists.findByName(organizationId, pick(LIST_NAMES, name)),
        await side.repos.contactLists.list(organizationId),
      ];
    }),
);

const addMember = fc.record({ n: fc.nat(), p: fc.nat(), t: fc.nat(20) }).map(
  ({ n, p, t }) =>
    new Operation(
      `contactLists.addMember(#${n}, profile #${p})`,
      (model) => model.lists.length > 0 && model.profiles.length > 0,
      (model) => {
        const list = pick(model.lists, n);
        const profile = memberOf(model, list, p);
        if (profile === undefined) return async () => "no profile in the list's organization";
        const membership = aMembership({
          organizationId: list.organizationId,
          listId: list.id,
          profileId: profile.id,
          addedAt: at(t),
        });
        return (side) => side.repos.contactLists.addMember(membership);
      },
    ),
);

const removeMember = fc.record({ n: fc.nat(), p: fc.nat(), org: fc.nat(1) }).map(
  ({ n, p, org }) =>
    new Operation(
      `contactLists.removeMember(#${n}, profile #${p}, org ${org})`,
      (model) => model.lists.length > 0 && model.profiles.length > 0,
      (model) => {
        const list = pick(model.lists, n);
        const profile = pick(model.profiles, p);
        return (side) => side.repos.contactLists.removeMember(pick(ORGS, org), list.id, profile.id);
      },
    ),
);

const readMembers = fc.record({ n: fc.nat(), p: fc.nat(), org: fc.nat(1) }).map(
  ({ n, p, org }) =>
    new Operation(
      `contactLists members(#${n}, profile #${p}, org ${org})`,
      (model) => model.lists.length > 0 && model.profiles.length > 0,
      (model) => {
        const list = pick(model.lists, n);
        const profile = pick(model.profiles, p);
        const organizationId = pick(ORGS, org);
        return async (side) => [
          await side.repos.contactLists.listMembers(organizationId, list.id),
          await side.repos.contactLists.listsOfProfile(organizationId, profile.id),
        ];
      },
    ),
);

const changeConsent = fc
  .record({ p: fc.nat(), sms: fc.boolean(), old: fc.option(fc.boolean()), t: fc.nat(20) })
  .map(
    ({ p, sms, old, t }) =>
      new Operation(`consent.insert(profile #${p})`, has("profiles"), (model) => {
        const profile = pick(model.profiles, p);
        const change = aConsentChange({
          organizationId: profile.organizationId,
          profileId: profile.id,
          channel: sms ? "sms" : "viber",
          oldValue: old,
          newValue: old !== true,
          changedAt: at(t),
        });
        return (side) => side.repos.consent.insert(change);
      }),
  );

const readConsent = fc.record({ p: fc.nat(), org: fc.nat(1) }).map(
  ({ p, org }) =>
    new Operation(`consent.listForProfile(#${p}, org ${org})`, has("profiles"), (model) => {
      const { id } = pick(model.profiles, p);
      return (side) => side.repos.consent.listForProfile(pick(ORGS, org), id);
    }),
);

/**
 * A profile created with its consent change in one transaction, as the core does; when
 * `rollBack`, the transaction throws after both writes and neither may be stored anywhere.
 */
const createInTransaction = fc
  .record({ org: fc.nat(1), phone: fc.nat(2), rollBack: fc.boolean(), t: fc.nat(50) })
  .map(({ org, phone, rollBack, t }) => {
    const profile = aProfile({
      organizationId: pick(ORGS, org),
      phoneNumber: pick(PHONES, phone),
      viberMarketingConsent: true,
      createdAt: at(t),
      updatedAt: at(t),
    });
    const change = aConsentChange({
      organizationId: profile.organizationId,
      profileId: profile.id,
      changedAt: at(t),
    });
    return new Operation(
      `transaction(profiles.insert(${org}, ${profile.phoneNumber}) + consent${rollBack ? ", rolled back" : ""})`,
      always,
      (_model, storages) => async (side) => {
        const storage = side.name === "reference" ? storages.reference : storages.subject.storage;
        const rolledBack = new Error("rolled back on purpose");
        try {
          return await storage.transaction(async (tx) => {
            const stored = await tx.profiles.insert(profile);
            if (stored === "phone_number_taken") return stored;
            await tx.consent.insert(change);
            if (rollBack) throw rolledBack;
            return stored;
          });
        } catch (error) {
          if (error === rolledBack) return "rolled back";
          throw error;
        }
      },
      (model, answer) => {
        if (answer === "rolled back") model.ghosts.push(profile.id);
        else if (typeof answer === "object") model.profiles.push(profile);
      },
    );
  });

/** Random operations on contact lists, memberships, consent history and transactions. */
export const audienceOperations = [
  insertList,
  readList,
  addMember,
  addMember,
  removeMember,
  readMembers,
  changeConsent,
  readConsent,
  createInTransaction,
];
