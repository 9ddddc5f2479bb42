import {
  type DeliveryWithAttemptsView,
  getDelivery,
  getMessage,
  listMessageDeliveries,
  listMessageEvents,
  type MessageEventView,
  type MessageView,
} from "@tidings/core";
import { Badge, CopyValue, Layout, Notice, type PageFrame, Time } from "../components.js";
import { noticeOf, type PageContext, type PageRoute, redirectTo, renderPage } from "../context.js";
import { DeliveryList } from "./deliveries.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const STATUS_TONES = {
  sent: "warn",
  delivered: "good",
  seen: "good",
  clicked: "good",
  failed: "bad",
  expired: "bad",
} as const;

/** A message's status in words, with a colour that repeats them. */
export function MessageStatus(props: { status: MessageView["status"] }) {
  return <Badge tone={STATUS_TONES[props.status]}>{props.status}</Badge>;
}

function SearchForm(props: { frame: PageFrame; q: string }) {
  return (
    <form method="get" action={`${props.frame.base}/messages`} class="search">
      <label for="q">Search</label>
      <input
        type="search"
        id="q"
        name="q"
        value={props.q}
        aria-describedby="q-hint"
        placeholder="Message ID"
      />
      <button type="submit">Search</button>
      <p class="hint" id="q-hint">
        A message ID, as the send answered it.
      </p>
    </form>
  );
}

function MessagesPage(props: { frame: PageFrame; q: string; problem: string | null }) {
  return (
    <Layout frame={props.frame} section="messages" title="Messages">
      <SearchForm frame={props.frame} q={props.q} />
      {props.problem && (
        <div class="problems" role="alert">
          <p>{props.problem}</p>
        </div>
      )}
    </Layout>
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
          {event.error && (
            <span class="field-error">
              {" "}
              {event.error.code}: {event.error.message}
            </span>
          )}
        </li>
      ))}
    </ol>
  );
}

const FINAL = new Set(["seen", "clicked", "failed", "expired"]);

function MessagePage(props: {
  frame: PageFrame;
  message: MessageView;
  events: MessageEventView[];
  deliveries: DeliveryWithAttemptsView[];
  notice: string | null;
}) {
  const { frame, message } = props;
  const settling =
    !FINAL.has(message.status) || props.deliveries.some((d) => d.status === "pending");
  return (
    <Layout frame={frame} section="messages" title="Message">
      {props.notice && <Notice>{props.notice}</Notice>}
      <dl class="facts" data-refresh={settling ? "3" : undefined}>
        <dt>Message ID</dt>
        <dd>
          <CopyValue value={message.message_id} label="Copy ID" />
        </dd>
        <dt>Status</dt>
        <dd>
          <MessageStatus status={message.status} />
          {message.error && (
            <span class="field-error">
              {" "}
              {message.error.code}: {message.error.message}
            </span>
          )}
        </dd>
        <dt>Recipient</dt>
        <dd>
          <a href={`${frame.base}/profiles/${message.recipient.public_id}`}>
            {message.recipient.phone_number}
          </a>
        </dd>
        <dt>Campaign</dt>
        <dd>
          <a href={`${frame.base}/campaigns/${message.campaign_id}`}>{message.campaign_id}</a>
        </dd>
        <dt>Channel</dt>
        <dd>
          {message.channel} ({message.category})
        </dd>
        <dt>Client reference</dt>
        <dd class="wrap">{message.client_reference ?? "—"}</dd>
        <dt>Sent</dt>
        <dd>
          <Time at={message.created_at} />
        </dd>
        <dt>Expires at</dt>
        <dd>
          <Time at={message.expires_at} />
        </dd>
      </dl>
      <section aria-labelledby="timeline-heading">
        <h2 id="timeline-heading">Lifecycle</h2>
        <Timeline events={props.events} />
      </section>
      <section aria-labelledby="deliveries-heading">
        <h2 id="deliveries-heading">Webhook deliveries</h2>
        <DeliveryList frame={frame} deliveries={props.deliveries} from="message" />
      </section>
    </Layout>
  );
}

async function messagePage(context: PageContext) {
  const id = context.params.id ?? "";
  const message = await getMessage(context.deps, context.actor, id);
  if (message.isErr()) return context.notFound();
  const events = await listMessageEvents(context.deps, context.actor, id);
  const deliveries = await listMessageDeliveries(context.deps, context.actor, id);
  if (events.isErr() || deliveries.isErr()) return context.notFound();
  // Each delivery with its attempts, oldest first.
  const withAttempts: DeliveryWithAttemptsView[] = [];
  for (const d of [...deliveries.value.data].reverse()) {
    const read = await getDelivery(context.deps, context.actor, d.delivery_id);
    if (read.isOk()) withAttempts.push(read.value);
  }
  return renderPage(
    200,
    <MessagePage
      frame={context.frame}
      message={message.value}
      events={events.value}
      deliveries={withAttempts}
      notice={noticeOf(context.request)}
    />,
  );
}

/** Messages: find one by id; its lifecycle timeline and its webhook deliveries. */
export const messageRoutes: PageRoute[] = [
  {
    method: "GET",
    pattern: "/messages",
    async handle(context) {
      const q = (context.request.query.get("q") ?? "").trim();
      if (q === "")
        return renderPage(200, <MessagesPage frame={context.frame} q="" problem={null} />);
      if (UUID.test(q)) {
        const found = await getMessage(context.deps, context.actor, q.toLowerCase());
        if (found.isOk()) return redirectTo(context.frame, `/messages/${found.value.message_id}`);
      }
      return renderPage(
        404,
        <MessagesPage
          frame={context.frame}
          q={q}
          problem="No message of this organization has this ID."
        />,
      );
    },
  },
  { method: "GET", pattern: "/messages/:id", handle: messagePage },
];
