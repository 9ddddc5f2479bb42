import {
  type DeliveryView,
  type DeliveryWithAttemptsView,
  getDelivery,
  redeliverDelivery,
} from "@tidings/core";
import { ActionButton, Badge, type PageFrame, Time } from "../components.js";
import { type PageContext, type PageRoute, redirectTo, renderPage } from "../context.js";
import { ProblemPage } from "./errors.js";

const TONES = {
  pending: "warn",
  succeeded: "good",
  failed: "bad",
  cancelled: "neutral",
} as const;

/** The statuses a delivery can be in, as the delivery log names them. */
export const DELIVERY_STATUSES = Object.keys(TONES);

/** A delivery's state in words, with a colour that repeats them. */
export function DeliveryStatus(props: { status: DeliveryView["status"] }) {
  return <Badge tone={TONES[props.status]}>{props.status}</Badge>;
}

/** Each delivery with its attempts (one read each: a page holds at most a hundred). */
export async function withAttempts(
  context: PageContext,
  deliveries: readonly DeliveryView[],
): Promise<DeliveryWithAttemptsView[]> {
  const read: DeliveryWithAttemptsView[] = [];
  for (const delivery of deliveries) {
    const found = await getDelivery(context.deps, context.actor, delivery.delivery_id);
    // A delivery deleted by retention since the page was read is simply left out.
    if (found.isOk()) read.push(found.value);
  }
  return read;
}

/** Where a delivery went: its subscription, or the message's own URL (without its query). */
function Destination(props: { delivery: DeliveryView; frame: PageFrame }) {
  const { delivery, frame } = props;
  const url = <span class="wrap">{delivery.url ?? "(subscription deleted)"}</span>;
  if (delivery.webhook_id === null) return url;
  return <a href={`${frame.base}/webhooks/${delivery.webhook_id}`}>{url}</a>;
}

/** An attempt's outcome in a few words: the status code, or what went wrong. */
export const outcomeOf = (answer: { status_code: number | null; error: string | null }): string =>
  answer.status_code !== null ? `answered ${answer.status_code}` : (answer.error ?? "no answer");

function Attempts(props: { delivery: DeliveryWithAttemptsView; open: boolean }) {
  const { delivery } = props;
  const count = delivery.attempts.length;
  if (count === 0) return null;
  return (
    <details open={props.open}>
      <summary>{count === 1 ? "1 attempt" : `${count} attempts`}</summary>
      <div class="table-wrap">
        <table class="attempts">
          <caption class="visually-hidden">Attempts of delivery {delivery.delivery_id}</caption>
          <thead>
            <tr>
              <th scope="col">Attempt</th>
              <th scope="col">Started</th>
              <th scope="col">Duration</th>
              <th scope="col">Status code</th>
              <th scope="col">Error</th>
              <th scope="col">Response</th>
            </tr>
          </thead>
          <tbody>
            {delivery.attempts.map((attempt) => (
              <tr key={attempt.attempt}>
                <td>{attempt.attempt}</td>
                <td>
                  <Time at={attempt.started_at} />
                </td>
                <td>{attempt.duration_ms} ms</td>
                <td>{attempt.status_code ?? "—"}</td>
                <td class="wrap">{attempt.error ?? "—"}</td>
                <td class="wrap">
                  {attempt.response_body ? <code>{attempt.response_body}</code> : "—"}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}

/**
 * Deliveries with their attempts, and a Redeliver button on each that has ended (failed,
 * cancelled, or succeeded and wanted again). `back` says which page the button returns to; a
 * message's page shows every attempt, a subscription's list folds them under each delivery.
 */
export function DeliveryList(props: {
  frame: PageFrame;
  deliveries: DeliveryWithAttemptsView[];
  back: "message" | "webhook";
}) {
  const { frame } = props;
  if (props.deliveries.length === 0) return <p class="empty">No webhook deliveries.</p>;
  return (
    <ul class="deliveries">
      {props.deliveries.map((delivery) => {
        const last = delivery.attempts.at(-1);
        return (
          <li key={delivery.delivery_id} class="delivery">
            <div class="delivery-head">
              <DeliveryStatus status={delivery.status} />
              <span>{delivery.topic}</span>
              {props.back === "message" ? (
                <span>
                  to <Destination delivery={delivery} frame={frame} />
                </span>
              ) : (
                delivery.message_id && (
                  <a href={`${frame.base}/messages/${delivery.message_id}`}>
                    Message<span class="visually-hidden"> {delivery.message_id}</span>
                  </a>
                )
              )}
              {delivery.status !== "pending" && (
                <ActionButton
                  frame={frame}
                  action={`/deliveries/${delivery.delivery_id}/redeliver`}
                  small
                  hidden={{ from: props.back }}
                >
                  Redeliver
                </ActionButton>
              )}
            </div>
            <p class="muted small-text">
              <code>{delivery.delivery_id}</code> · created <Time at={delivery.created_at} />
              {last && (
                <>
                  {" "}
                  · last attempt <Time at={last.started_at} /> {outcomeOf(last)}
                </>
              )}
              {delivery.next_attempt_at && (
                <>
                  {" "}
                  · next attempt <Time at={delivery.next_attempt_at} />
                </>
              )}
            </p>
            <Attempts delivery={delivery} open={props.back === "message"} />
          </li>
        );
      })}
    </ul>
  );
}

/** Redeliver: an ended delivery is pending again, due now; back to the page it was pressed on. */
export const deliveryRoutes: PageRoute[] = [
  {
    method: "POST",
    pattern: "/deliveries/:id/redeliver",
    async handle(context) {
      const redelivered = await redeliverDelivery(context.deps, context.actor, context.id);
      if (redelivered.isErr()) {
        if (redelivered.error.type === "not_found") return context.notFound();
        return renderPage(
          409,
          <ProblemPage
            frame={context.frame}
            section="webhooks"
            title="Not redelivered"
            message={redelivered.error.message}
          />,
        );
      }
      const delivery = redelivered.value;
      const back =
        context.request.form.get("from") === "webhook" && delivery.webhook_id !== null
          ? `/webhooks/${delivery.webhook_id}`
          : delivery.message_id
            ? `/messages/${delivery.message_id}`
            : "/webhooks";
      return redirectTo(context.frame, back, "delivery_redelivered");
    },
  },
];
