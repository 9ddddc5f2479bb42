import type {
  ApiKeyRecord,
  CampaignRecord,
  DeliveryRecord,
  MessageEventRecord,
  MessageRecord,
  OrganizationRecord,
  ProfileRecord,
  Repositories,
  WebhookSubscriptionRecord,
} from "../../ports.js";
import {
  aCampaign,
  aDelivery,
  aMessage,
  anApiKey,
  anEvent,
  anOrganization,
  aProfile,
  aWebhook,
} from "./fixtures.js";
import type { StorageHarness } from "./raw.js";

/** Stores a fresh organization and returns its id. */
export async function anOrganizationIn(repos: Repositories): Promise<string> {
  const org = anOrganization();
  await repos.organizations.insert(org);
  return org.id;
}

/** An organization with one API key, one campaign and one profile, all stored. */
export interface SeededOrganization {
  organization: OrganizationRecord;
  apiKey: ApiKeyRecord;
  campaign: CampaignRecord;
  profile: ProfileRecord;
}

/** Stores an organization and the records a message needs, so foreign keys hold. */
export async function seedOrganization(repos: Repositories): Promise<SeededOrganization> {
  const organization = anOrganization();
  await repos.organizations.insert(organization);
  const organizationId = organization.id;
  const apiKey = anApiKey({ organizationId });
  await repos.apiKeys.insert(apiKey);
  const campaign = aCampaign({ organizationId });
  await repos.campaigns.insert(campaign);
  const profile = await repos.profiles.insert(aProfile({ organizationId }));
  if (profile === "phone_number_taken") throw new Error("seed: fresh phone number was taken");
  return { organization, apiKey, campaign, profile };
}

/** Stores a message of the seeded organization with its `message.sent` event. */
export async function seedMessage(
  repos: Repositories,
  org: SeededOrganization,
  overrides: Partial<MessageRecord> = {},
): Promise<{ message: MessageRecord; event: MessageEventRecord }> {
  const message = aMessage({
    organizationId: org.organization.id,
    apiKeyId: org.apiKey.id,
    campaignId: org.campaign.id,
    profileId: org.profile.id,
    phoneNumber: org.profile.phoneNumber,
    ...overrides,
  });
  await repos.messages.insert(message);
  const event = anEvent({
    organizationId: message.organizationId,
    messageId: message.id,
    createdAt: message.createdAt,
  });
  await repos.messages.insertEvent(event, []);
  return { message, event };
}

/** Stores a subscription of the seeded organization. */
export async function seedWebhook(
  repos: Repositories,
  org: SeededOrganization,
  overrides: Partial<WebhookSubscriptionRecord> = {},
): Promise<WebhookSubscriptionRecord> {
  const webhook = aWebhook({ organizationId: org.organization.id, ...overrides });
  await repos.webhooks.insert(webhook);
  return webhook;
}

/**
 * Stores a delivery of a fresh message's event to `webhook` (a new subscription when omitted).
 */
export async function seedDelivery(
  repos: Repositories,
  org: SeededOrganization,
  overrides: Partial<DeliveryRecord> = {},
  webhook?: WebhookSubscriptionRecord,
): Promise<DeliveryRecord> {
  const { message, event } = await seedMessage(repos, org);
  const target = webhook ?? (await seedWebhook(repos, org));
  const delivery = aDelivery({
    organizationId: org.organization.id,
    eventId: event.id,
    messageId: message.id,
    destination: { kind: "subscription", webhookId: target.id },
    ...overrides,
  });
  await repos.deliveries.insert(delivery);
  return delivery;
}

/**
 * A fresh storage with two organizations: `orgA` to work in, and `orgB`, whose records must
 * never show in `orgA`'s answers.
 */
export async function twoOrganizations(harness: () => StorageHarness) {
  const { storage, raw } = harness();
  const orgA = await anOrganizationIn(storage);
  const orgB = await anOrganizationIn(storage);
  return { storage, raw, orgA, orgB };
}

/**
 * A fresh storage with two seeded organizations (each with its key, campaign and profile):
 * `org` to work in, and `other`, whose records must never show in `org`'s answers.
 */
export async function twoSeededOrganizations(harness: () => StorageHarness) {
  const { storage, raw } = harness();
  const org = await seedOrganization(storage);
  const other = await seedOrganization(storage);
  return { storage, raw, org, other };
}
