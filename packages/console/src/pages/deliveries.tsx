import { type DeliveryWithAttemptsView, redeliverDelivery } from "@tidings/core";
import { Badge, type PageFrame, PostForm, shownUrl, Time } from "../components.js";
import { type PageRoute, redirectTo, renderPage } from "../context.js";
import { ProblemPage } from "./errors.js";

const TONES = {
  pending: "warn",
  delivered: "good",
  succeeded: "good",
  failed: "bad",
  cancelled: "neutral",
} as const;

/** A delivery's state in words, with a colour that repeats them. */
export function DeliveryStatus(props: { status: string }) {
  const tone = TONES[props.status as keyof typeof TONES] ?? "neutral";
  return <Badge tone={tone}>{props.status}</Badge>;
}

/** Where a delivery went: its subscription, or the message's own URL (without its query). */
function destinationOf(delivery: DeliveryWithAttemptsView, frame: PageFrame) {
  if (delivery.webhook_id !== null) {
    const id = delivery.webhook_id;
    return <a href={`${frame.base}/webhooks/${id}`}>{id}</a>;
  }
  return <span class="wrap">{shownUrl(delivery.url ?? "")}</span>;
}

/**
 * Deliveries with their attempts, oldest attempt first, and a Redeliver button on each failed
 * one. `from` says which page the button returns to.
 */
export function DeliveryList(props: {
  frame: PageFrame;
  deliveries: DeliveryWithAttemptsView[];
  from: "message" | "webhook";
}) {
  const { frame } = props;
  if (props.deliveries.length === 0) return <p class="empty">No webhook deliveries.</p>;
  return (
    <ul class="deliveries">
      {props.deliveries.map((delivery) => (
        <li key={delivery.delivery_id} class="delivery">
          <div class="delivery-head">
            <DeliveryStatus status={delivery.status} />
            <span>{delivery.topic}</span>
            <span>to {destinationOf(delivery, frame)}</span>
            <code class="muted">{delivery.delivery_id}</code>
            {delivery.status === "failed" && (
              <PostForm
                frame={frame}
                action={`${frame.base}/deliveries/${delivery.delivery_id}/redeliver`}
                class="inline"
              >
                <input type="hidden" name="from" value={props.from} />
                <button type="submit" class="small">
                  Redeliver
                </button>
              </PostForm>
            )}
          </div>
          <p class="muted small-text">
            Created <Time at={delivery.created_at} />
            {delivery.next_attempt_at && (
              <>
                {" "}
                · next attempt <Time at={delivery.next_attempt_at} />
              </>
            )}
          </p>
          {delivery.attempts.length > 0 && (
            <div class="table-wrap">
              <table class="attempts">
                <caption class="visually-hidden">
                  Attempts of delivery {delivery.delivery_id}
                </caption>
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
          )}
        </li>
      ))}
    </ul>
  );
}

/** Redeliver: a failed delivery is pending again, due now; back to the page it was pressed on. */
export const deliveryRoutes: PageRoute[] = [
  {
    method: "POST",
    pattern: "/deliveries/:id/redeliver",
    async handle(context) {
      const redelivered = await redeliverDelivery(
        context.deps,
        context.actor,
        context.params.id ?? "",
      );
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
