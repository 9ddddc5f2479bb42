import {
  activateCampaign,
  createCampaign,
  createCampaignInput,
  deactivateCampaign,
  getCampaign,
  listCampaigns,
  listCampaignsQuery,
  updateCampaign,
  updateCampaignInput,
} from "@tidings/core";
import type { Route } from "../route.js";
import { callWithBody, callWithId, callWithIdAndBody, callWithQuery } from "./use-case-handlers.js";

const CAMPAIGN_EXAMPLE = {
  campaign_id: "cmp_01jd5x7k9m2n3p4q5r6s7t8v9w",
  name: "Login codes",
  channel: "sms",
  sms_fallback: false,
  sms_sender: null,
  track_links: false,
  allowed_countries: null,
  category: "otp",
  sender: "Tidings",
  template: "Your code is {{pin}}.",
  ttl_seconds: 300,
  status: "active",
  sending_window: null,
  created_at: "2026-01-15T09:00:00.000Z",
  updated_at: "2026-01-15T09:05:00.000Z",
};

/** What most campaign endpoints answer. */
const CAMPAIGN = {
  status: 200,
  schema: "Campaign",
  description: "The campaign.",
  example: CAMPAIGN_EXAMPLE,
} as const;

/** The status changes: both answer the campaign, and repeating one is harmless. */
const statusRoute = (
  action: "activate" | "deactivate",
  change: typeof activateCampaign,
  summary: string,
): Route => ({
  method: "POST",
  path: `/v1/campaigns/{campaign_id}/${action}`,
  scope: "campaigns:manage",
  doc: {
    operationId: `${action}Campaign`,
    summary,
    tag: "Campaigns",
    success: CAMPAIGN,
    errors: action === "activate" ? [400, 404, 409] : [404],
    ...(action === "activate" ? { conflicts: ["sender_taken" as const] } : {}),
  },
  handle: callWithId("campaign_id", change),
});

/** The operator's campaign endpoints, under `campaigns:manage`. */
export const campaignRoutes: Route[] = [
  {
    method: "POST",
    path: "/v1/campaigns",
    scope: "campaigns:manage",
    doc: {
      operationId: "createCampaign",
      summary: "Create an API campaign; it is inactive unless `status` says otherwise.",
      tag: "Campaigns",
      body: {
        name: "CreateCampaignRequest",
        schema: createCampaignInput,
        example: {
          name: "Login codes",
          channel: "sms",
          category: "otp",
          sender: "Tidings",
          template: "Your code is {{pin}}.",
          ttl_seconds: 300,
          status: "active",
        },
      },
      success: { ...CAMPAIGN, status: 201 },
      errors: [400, 409, 413, 415],
      conflicts: ["sender_taken"],
    },
    handle: callWithBody(createCampaign, 201),
  },
  {
    method: "GET",
    path: "/v1/campaigns",
    scope: "campaigns:manage",
    doc: {
      operationId: "listCampaigns",
      summary: "List the organization's campaigns, newest first, optionally by status.",
      tag: "Campaigns",
      query: listCampaignsQuery,
      success: {
        status: 200,
        schema: "CampaignPage",
        description: "A page of campaigns.",
        example: { data: [CAMPAIGN_EXAMPLE], meta: { has_more: false, next_cursor: null } },
      },
      errors: [400],
    },
    handle: callWithQuery(listCampaigns),
  },
  {
    method: "GET",
    path: "/v1/campaigns/{campaign_id}",
    scope: "campaigns:manage",
    doc: {
      operationId: "getCampaign",
      summary: "Retrieve a campaign.",
      tag: "Campaigns",
      success: CAMPAIGN,
      errors: [404],
    },
    handle: callWithId("campaign_id", getCampaign),
  },
  {
    method: "PATCH",
    path: "/v1/campaigns/{campaign_id}",
    scope: "campaigns:manage",
    doc: {
      operationId: "updateCampaign",
      summary:
        "Change a campaign's name, sender, template, TTL or SMS fallback; its channel and " +
        "category only while it is inactive (409 `campaign_active`). The next send uses it.",
      tag: "Campaigns",
      body: {
        name: "UpdateCampaignRequest",
        schema: updateCampaignInput,
        example: { template: "Your Tidings code is {{pin}}.", ttl_seconds: 300 },
      },
      success: { ...CAMPAIGN, description: "The updated campaign." },
      errors: [400, 404, 409, 413, 415],
      conflicts: ["campaign_active", "sender_taken"],
    },
    handle: callWithIdAndBody("campaign_id", updateCampaign),
  },
  statusRoute("activate", activateCampaign, "Make a campaign triggerable."),
  statusRoute("deactivate", deactivateCampaign, "Stop a campaign from being triggered."),
];
