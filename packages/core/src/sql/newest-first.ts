import type {
  CampaignListQuery,
  CampaignRecord,
  DeliveryListQuery,
  DeliveryRecord,
  MessageListQuery,
  MessageRecord,
  Sequenced,
} from "../ports.js";
import type { SqlCodec } from "./codec.js";
import { sqlRecords } from "./records.js";
import { fieldOf, type SqlTable, selectColumns, sqlTables } from "./tables.js";

/** One page's statement, its values, and the decoder of the rows it answers. */
export interface PageStatement<R> {
  readonly text: string;
  readonly values: readonly unknown[];
  readonly decode: (row: unknown) => Sequenced<R>;
}

/**
 * A list's filters: the columns a present query field must equal (the field of the same name
 * in camelCase), and whether `createdAfter` and `createdBefore` bound `created_at`.
 */
interface Filters {
  readonly equal: readonly string[];
  readonly createdRange?: boolean;
  /** Conditions that hold when their query field is `true` (they take no value). */
  readonly when?: Readonly<Record<string, string>>;
}

/** `isFailingDelivery` in SQL: pending, attempted, and the last attempt did not answer 2xx. */
export const FAILING_DELIVERY_SQL =
  "(status = 'pending' AND attempts > 0 AND " +
  "(last_status_code IS NULL OR last_status_code NOT BETWEEN 200 AND 299))";

/** The statement of each newest-first list, over the table named as the database names it. */
export interface NewestFirstPages {
  campaigns(query: CampaignListQuery, from: string): PageStatement<CampaignRecord>;
  messages(query: MessageListQuery, from: string): PageStatement<MessageRecord>;
  deliveries(query: DeliveryListQuery, from: string): PageStatement<DeliveryRecord>;
}

/**
 * The newest-first pages of the operator lists, the same SQL on both databases: one condition
 * per filter present, all combined with AND, `seq < ?` for the pages after the first, newest
 * `seq` first. Only present filters become parameters, so each combination is a statement
 * (and a plan) of its own, and each has an index to read.
 */
export function newestFirstPages(codec: SqlCodec): NewestFirstPages {
  const records = sqlRecords(codec);
  const page =
    <R>(table: SqlTable, decode: (row: unknown) => R, filters: Filters) =>
    (query: object, from: string): PageStatement<R> => {
      const q = query as Record<string, unknown>;
      const conditions: Array<readonly [string, unknown]> = [
        ...filters.equal.map((column) => [`${column} = ?`, q[fieldOf(column)]] as const),
        ...(filters.createdRange === true
          ? ([
              ["created_at > ?", q.createdAfter],
              ["created_at < ?", q.createdBefore],
            ] as const)
          : []),
        ["seq < ?", q.beforeSeq],
      ];
      const values: unknown[] = [];
      const where: string[] = Object.entries(filters.when ?? {})
        .filter(([field]) => q[field] === true)
        .map(([, condition]) => condition);
      for (const [condition, value] of conditions) {
        if (value === undefined) continue;
        values.push(value);
        where.push(condition.replace("?", codec.placeholder(values.length)));
      }
      values.push(q.limit);
      return {
        text:
          `SELECT seq, ${selectColumns(table, codec)} FROM ${from} ` +
          `WHERE ${where.join(" AND ")} ` +
          `ORDER BY seq DESC LIMIT ${codec.placeholder(values.length)}`,
        values,
        decode: records.sequenced(table.name, decode),
      };
    };
  return {
    campaigns: page(sqlTables.campaigns, records.campaign, {
      equal: ["organization_id", "status"],
    }),
    messages: page(sqlTables.messages, records.message, {
      equal: ["organization_id", "status", "campaign_id", "client_reference", "phone_number"],
      createdRange: true,
    }),
    deliveries: page(sqlTables.deliveries, records.delivery, {
      equal: ["organization_id", "status", "webhook_id", "message_id"],
      createdRange: true,
      when: { failing: FAILING_DELIVERY_SQL },
    }),
  };
}
