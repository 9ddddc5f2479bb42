/**
 * API campaigns.
 * The conventions every port follows are in `../ports.ts`.
 */

import type { SendingWindow } from "../schedule/sending-window.js";
import type { Sequenced } from "./time-and-ids.js";

export type Channel = "viber" | "sms";

export type Category = "otp" | "transactional" | "promotional";

export interface CampaignRecord {
  id: string;
  organizationId: string;
  name: string;
  channel: Channel;
  /** Only meaningful for Viber campaigns; always false for SMS. */
  smsFallback: boolean;
  category: Category;
  sender: string;
  template: string;
  ttlSeconds: number;
  status: "active" | "inactive";
  createdAt: string;
  updatedAt: string;
  /** Viber campaigns only: the SMS sender of a fallback; `null`: the campaign's `sender`. */
  smsSender: string | null;
  /** Whether sends rewrite the template's http(s) URLs into tracked short links. */
  trackLinks: boolean;
  /** When its messages may reach a recipient, in the recipient's local time; `null`: any time. */
  sendingWindow: SendingWindow | null;
  /** Countries this campaign may send to, within the organization's; `null`: the organization's. */
  allowedCountries: string[] | null;
}

export interface CampaignListQuery {
  organizationId: string;
  status?: "active" | "inactive" | undefined;
  /** Only rows with `seq` less than this (the next page of a newest-first list). */
  beforeSeq?: number | undefined;
  /** How many rows to return at most (the core asks for one more than the page size). */
  limit: number;
}

export interface CampaignRepository {
  insert(campaign: CampaignRecord): Promise<void>;
  get(organizationId: string, id: string): Promise<CampaignRecord | null>;
  /** The organization's campaigns, oldest first. */
  list(organizationId: string): Promise<CampaignRecord[]>;
  /** The organization's campaigns, newest first (`seq` descending), filtered and paged. */
  listPage(query: CampaignListQuery): Promise<Sequenced<CampaignRecord>[]>;
  /**
   * Inside a transaction, holds the campaign against other writers until it commits, so a
   * read-modify-write of it never loses a concurrent one's field (a row lock in PostgreSQL;
   * the single writer in SQLite and in memory). Call it before the read. Unknown: no-op.
   */
  lock(organizationId: string, id: string): Promise<void>;
  /** Replaces the mutable fields (channel and category included); `false` when unknown. */
  update(campaign: CampaignRecord): Promise<boolean>;
}
