import {
  cancelMessage,
  type DeliveryWithAttemptsView,
  getCampaign,
  getMessage,
  listMessageDeliveries,
  type MessageEventView,
  type MessageView,
} from "@tidings/core";
import {
  ActionButton,
  Badge,
  CopyValue,
  Fact,
  Layout,
  type PageFrame,
  Time,
} from "../components.js";
import { type PageContext, type PageRoute, redirectTo, renderPage } from "../context.js";
import { DeliveryList, withAttempts } from "./deliveries.js";

const STATUS_TONES = {
  scheduled: "neutral",
  releasing: "neutral",
  sent: "warn",
  delivered: "good",
  seen: "good",
  clicked: "good",
  failed: "bad",
  expired: "bad",
  cancelled: "neutral",
} as const;

/** A message's status in words, with a colour that repeats them. */
export function MessageStatus(props: { status: MessageView["status"] }) {
  return <Badge tone={STATUS_TONES[props.status]}>{props.status}</Badge>;
}

/** The statuses a message can be in, in lifecycle order. */
export const MESSAGE_STATUSES = Object.keys(STATUS_TONES);

/** Campaign names by id, for the campaigns a page of messages went out through. */
export async function campaignNames(context: PageContext, ids: readonly string[]) {
  const names = new Map<string, string>();
  for (const id of new Set(ids)) {
    const found = await getCampaign(context.deps, context.actor, id);
    if (found.isOk()) names.set(id, found.value.name);
  }
  return names;
}

/**
 * What went wrong, by its code and in words, after the status or event it belongs to; with the
 * provider that said so and its own code, when one did.
 */
function ErrorCode(props: {
  error:
    | { code: string; message: string; provider?: string | null; provider_code?: string | null }
    | null
    | undefined;
}) {
  if (!props.error) return null;
  const { provider, provider_code: providerCode } = props.error;
  const source = provider ? ` (${provider}${providerCode ? ` ${providerCode}` : ""})` : "";
  return (
    <span class="field-error">
      {" "}
      {props.error.code}
      {source}: {props.error.message}
    </span>
  );
}

function Timeline(props: { events: MessageEventView[] }) {
  if (props.events.length === 0) return <p class="empty">No events yet.</p>;
  return (
    <ol class="timeline">
      {props.events.map((event) => (
        <li key={event.event_id}>
          <Time at={event.created_at} /> <strong>{event.topic.replace("message.", "")}</strong>{" "}
          <span class="muted">via {event.channel}</span>
          <ErrorCode error={event.error} />
        </li>
      ))}
    </ol>
  );
}

function Links(props: { links: MessageView["links"] }) {
  if (props.links.length === 0) return <p class="empty">No tracked links.</p>;
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Short link</th>
          <th scope="col">Original URL</th>
          <th scope="col">Clicks</th>
          <th scope="col">First click</th>
          <th scope="col">Last click</th>
        </tr>
      </thead>
      <tbody>
        {props.links.map((link) => (
          <tr key={link.url}>
            <td>
              <code>{link.url}</code>
            </td>
            <td>{link.original_url}</td>
            <td>{link.clicks}</td>
            <td>{link.first_clicked_at === null ? "—" : <Time at={link.first_clicked_at} />}</td>
            <td>{link.last_clicked_at === null ? "—" : <Time at={link.last_clicked_at} />}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const FINAL = new Set(["seen", "clicked", "failed", "expired", "cancelled"]);

function MessagePage(props: {
  frame: PageFrame;
  message: MessageView;
  campaign: string;
  events: MessageEventView[];
  deliveries: DeliveryWithAttemptsView[];
}) {
  const { frame, message } = props;
  // A scheduled message may wait days for its release: the page is not refreshed meanwhile.
  const settling =
    (message.status !== "scheduled" && !FINAL.has(message.status)) ||
    props.deliveries.some((d) => d.status === "pending");
  return (
    <Layout frame={frame} section="messages" title="Message">
      <dl class="facts" data-refresh={settling ? "3" : undefined}>
        <Fact term="Message ID">
          <CopyValue value={message.message_id} label="Copy ID" />
        </Fact>
        <Fact term="Status">
          <MessageStatus status={message.status} />
          <ErrorCode error={message.error} />
        </Fact>
        <Fact term="Recipient">
          <a href={`${frame.base}/profiles/${message.recipient.public_id}`}>
            {message.recipient.phone_number}
          </a>
        </Fact>
        <Fact term="Campaign" wrap>
          <a href={`${frame.base}/campaigns/${message.campaign_id}`}>{props.campaign}</a>
        </Fact>
        <Fact term="Channel">
          {message.channel} ({message.category})
        </Fact>
        <Fact term="Provider">{message.provider ?? "—"}</Fact>
        <Fact term="Provider message ID" wrap>
          {message.provider_message_id === null ? (
            "—"
          ) : (
            <CopyValue value={message.provider_message_id} label="Copy provider message ID" />
          )}
        </Fact>
        <Fact term="Client reference" wrap>
          {message.client_reference ?? "—"}
        </Fact>
        <Fact term="Webhook URL" wrap>
          {message.webhook_url ?? "—"}
        </Fact>
        <Fact term="Sent">
          <Time at={message.created_at} />
        </Fact>
        {message.scheduled_for === null ? null : (
          <Fact term="Release time">
            <Time at={message.scheduled_for} />
          </Fact>
        )}
        <Fact term="Expires at">
          <Time at={message.expires_at} />
        </Fact>
      </dl>
      {message.status === "scheduled" ? (
        <div class="actions">
          <ActionButton
            frame={frame}
            action={`/messages/${message.message_id}/cancel`}
            look="danger"
            confirm="Cancel this scheduled message? It will never be sent."
          >
            Cancel message
          </ActionButton>
        </div>
      ) : null}
      <section aria-labelledby="timeline-heading">
        <h2 id="timeline-heading">Lifecycle</h2>
        <Timeline events={props.events} />
      </section>
      <section aria-labelledby="links-heading">
        <h2 id="links-heading">Tracked links</h2>
        <Links links={message.links} />
      </section>
      <section aria-labelledby="deliveries-heading">
        <h2 id="deliveries-heading">Webhook deliveries</h2>
        <DeliveryList frame={frame} deliveries={props.deliveries} back="message" />
      </section>
    </Layout>
  );
}

/**
 * Cancels a scheduled message; one its release took meanwhile is not cancelled, and the page
 * says so.
 */
export const cancelRoute: PageRoute = {
  method: "POST",
  pattern: "/messages/:id/cancel",
  async handle(context: PageContext) {
    const cancelled = await cancelMessage(context.deps, context.actor, context.id);
    if (cancelled.isErr() && cancelled.error.type === "not_found") return context.notFound();
    return redirectTo(
      context.frame,
      `/messages/${context.id}`,
      cancelled.isOk() ? "message_cancelled" : "message_not_scheduled",
    );
  },
};

/** A message: its facts, its lifecycle timeline and its webhook deliveries with their attempts. */
export const messageRoute: PageRoute = {
  method: "GET",
  pattern: "/messages/:id",
  async handle(context: PageContext) {
    const message = await getMessage(context.deps, context.actor, context.id);
    // A message has a few deliveries per subscription: the largest page shows them all.
    const deliveries = await listMessageDeliveries(context.deps, context.actor, context.id, {
      limit: "100",
    });
    if (message.isErr() || deliveries.isErr()) return context.notFound();
    const { events, ...view } = message.value;
    const campaigns = await campaignNames(context, [view.campaign_id]);
    return renderPage(
      200,
      <MessagePage
        frame={context.frame}
        message={view}
        campaign={campaigns.get(view.campaign_id) ?? view.campaign_id}
        events={events}
        deliveries={(await withAttempts(context, deliveries.value.data)).reverse()}
      />,
    );
  },
};
