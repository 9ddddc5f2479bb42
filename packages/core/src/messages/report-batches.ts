import type { Result } from "neverthrow";
import type { Deps } from "../deps.js";
import type { DomainError } from "../errors.js";
import type { MessageError, ProviderReport } from "../ports.js";
import { StorageBusyError } from "../support/storage-busy.js";
import { isStorageUnavailable } from "../support/storage-faults.js";
import { inSpan } from "../support/tracing.js";
import { advanceWithin } from "./lifecycle.js";
import {
  type ReportOutcome,
  recordProviderReport,
  reportError,
  reportOutcome,
} from "./provider-report.js";

/** Options of `batchedProviderReports`. */
export interface ReportBatchOptions {
  /** The most reports one transaction records (64). */
  maxBatch?: number | undefined;
}

interface Waiting {
  messageId: string;
  report: ProviderReport;
  error: MessageError | undefined;
  settle: {
    resolve(outcome: Result<ReportOutcome, DomainError>): void;
    reject(error: unknown): void;
  };
}

/**
 * `recordProviderReport` for reports that arrive together: those asked for in one turn of the
 * event loop (a provider's reports of a busy second come due together) are recorded in one
 * transaction, each as it would be alone, so they share its BEGIN and COMMIT, one commit's
 * flush, and on PostgreSQL the round trips their events travel in. Each caller gets its own
 * outcome. The messages are moved in id order, so two batches that share messages wait for each
 * other instead of deadlocking. When the batch's transaction fails for anything but storage
 * (a row that cannot be read, a deadlock), each report is recorded again alone, so only the bad
 * one fails; when storage is unavailable or busy, every report of the batch is told so, and the
 * provider offers each again (a report recorded twice is ignored the second time).
 */
export function batchedProviderReports(
  deps: Pick<Deps, "storage" | "ids" | "clock">,
  options: ReportBatchOptions = {},
): (
  messageId: string,
  report: ProviderReport,
  error?: MessageError,
) => Promise<Result<ReportOutcome, DomainError>> {
  const maxBatch = options.maxBatch ?? 64;
  let waiting: Waiting[] = [];

  const recordAlone = (item: Waiting): void => {
    recordProviderReport(deps, item.messageId, item.report, item.error).then(
      item.settle.resolve,
      item.settle.reject,
    );
  };

  const record = async (batch: Waiting[]): Promise<void> => {
    if (batch.length === 1) {
      recordAlone(batch[0] as Waiting);
      return;
    }
    batch.sort((a, b) => (a.messageId < b.messageId ? -1 : a.messageId > b.messageId ? 1 : 0));
    let outcomes: Array<Result<ReportOutcome, DomainError>>;
    try {
      outcomes = await inSpan("recordProviderReports", { "tidings.reports": batch.length }, () =>
        deps.storage.transaction(async (tx) => {
          const done: Array<Result<ReportOutcome, DomainError>> = [];
          for (const { messageId, report, error } of batch) {
            const advance = await advanceWithin(
              tx,
              deps,
              messageId,
              report,
              reportError(report, error),
            );
            done.push(reportOutcome(messageId, advance));
          }
          return done;
        }),
      );
    } catch (error) {
      if (isStorageUnavailable(error) || error instanceof StorageBusyError) {
        for (const item of batch) item.settle.reject(error);
      } else {
        for (const item of batch) recordAlone(item);
      }
      return;
    }
    for (const [index, item] of batch.entries()) {
      item.settle.resolve(outcomes[index] as Result<ReportOutcome, DomainError>);
    }
  };

  const flush = (): void => {
    const taken = waiting;
    waiting = [];
    for (let start = 0; start < taken.length; start += maxBatch) {
      void record(taken.slice(start, start + maxBatch));
    }
  };

  return (messageId, report, error) =>
    new Promise((resolve, reject) => {
      if (waiting.length === 0) setImmediate(flush);
      waiting.push({ messageId, report, error, settle: { resolve, reject } });
    });
}
