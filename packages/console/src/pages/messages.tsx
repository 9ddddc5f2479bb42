import {
  getMessage,
  isUuidV7,
  listMessages,
  type MessageView,
  validationError,
} from "@tidings/core";
import { err } from "neverthrow";
import { fieldsOf, Layout, type PageFrame, SelectField, Time } from "../components.js";
import { type PageContext, type PageRoute, redirectTo, renderPage } from "../context.js";
import { type ListPage, ListTable, readList, SearchBox } from "../lists.js";
import {
  campaignNames,
  cancelRoute,
  MESSAGE_STATUSES,
  MessageStatus,
  messageRoute,
} from "./message.js";

const STATUS_OPTIONS = [
  { value: "", label: "Any" },
  ...MESSAGE_STATUSES.map((status) => ({ value: status, label: status })),
];

/** What the search box is matched against; without a choice, the text decides. */
const SEARCH_BY = [
  { value: "", label: "Whatever it looks like" },
  { value: "id", label: "Message ID" },
  { value: "phone_number", label: "Phone number" },
  { value: "client_reference", label: "Client reference" },
];

const FILTERS = ["q", "by", "status", "campaign_id"] as const;

/**
 * What `q` is looked up as: the chosen kind, else a message id for a UUID, a phone number for
 * text starting with `+`, and a client reference for anything else.
 */
function searchKind(q: string, by: string): "id" | "phone_number" | "client_reference" | null {
  if (q === "") return null;
  if (by === "id" || by === "phone_number" || by === "client_reference") return by;
  if (isUuidV7(q.toLowerCase())) return "id";
  return q.startsWith("+") ? "phone_number" : "client_reference";
}

const HINTS = {
  phone_number: "A phone number in international form, such as +44 7700 900123.",
  default:
    "A message ID, a phone number in international form (+…) or the client reference the send carried.",
};

function MessagesPage(props: {
  frame: PageFrame;
  list: ListPage<MessageView>;
  campaigns: Map<string, string>;
  /** The organization's campaigns, for the campaign filter, by name. */
  choices: ReadonlyArray<{ value: string; label: string }>;
}) {
  const { frame, list } = props;
  const { filters, errors } = list;
  const filtered = Object.values(filters).some((value) => value !== "");
  const filter = fieldsOf(filters, errors);
  const campaignOptions = [{ value: "", label: "Any campaign" }, ...props.choices];
  return (
    <Layout frame={frame} section="messages" title="Messages">
      <p>
        <a href={`${frame.base}/messages?status=scheduled`}>Scheduled messages</a>: held for their
        campaign's sending window or their send_at, each with its release time; open one to cancel
        it.
      </p>
      <ListTable
        frame={frame}
        path="/messages"
        list={list}
        heading={filtered ? "Matching messages" : "All messages, newest first"}
        empty={filtered ? "No message matches." : "No messages yet."}
        columns={[
          "Message ID",
          "Recipient",
          "Campaign",
          "Status",
          "Provider",
          "Client reference",
          "Sent",
          "Release time",
        ]}
        filterLabel="Find messages"
        filterButton="Search"
        filters={
          <>
            <SearchBox
              value={filters.q}
              errors={errors}
              hint={filters.by === "phone_number" ? HINTS.phone_number : HINTS.default}
            />
            <SelectField {...filter("by")} label="Search by" options={SEARCH_BY} />
            <SelectField {...filter("status")} label="Status" options={STATUS_OPTIONS} />
            <SelectField {...filter("campaign_id")} label="Campaign" options={campaignOptions} />
          </>
        }
      >
        {list.rows.map((message) => (
          <tr key={message.message_id}>
            <td>
              <a href={`${frame.base}/messages/${message.message_id}`}>
                <code>{message.message_id}</code>
              </a>
            </td>
            <td>{message.recipient.phone_number}</td>
            <td class="wrap">{props.campaigns.get(message.campaign_id) ?? message.campaign_id}</td>
            <td>
              <MessageStatus status={message.status} />
            </td>
            <td>{message.provider ?? "—"}</td>
            <td class="wrap">{message.client_reference ?? "—"}</td>
            <td>
              <Time at={message.created_at} />
            </td>
            <td>{message.scheduled_for === null ? "—" : <Time at={message.scheduled_for} />}</td>
          </tr>
        ))}
      </ListTable>
    </Layout>
  );
}

/** The filter field of a parameter of the message list: what was searched for is `q`. */
const fieldOf = (path: string) =>
  path === "phone_number" || path === "client_reference" ? "q" : path;

async function messagesPage(context: PageContext) {
  const { request, frame } = context;
  const q = (request.query.get("q") ?? "").trim();
  const by = (request.query.get("by") ?? "").trim();
  const kind = request.queryIssues.length > 0 ? null : searchKind(q, by);
  if (kind === "id") {
    const found = await getMessage(context.deps, context.actor, q.toLowerCase());
    if (found.isOk()) return redirectTo(frame, `/messages/${found.value.message_id}`);
  }
  const list =
    kind === "id" && by === "id"
      ? await readList<MessageView>(context, "/messages", FILTERS, async () =>
          err(
            validationError([
              { path: "q", message: "no message of this organization has this ID." },
            ]),
          ),
        )
      : await readList(
          context,
          "/messages",
          FILTERS,
          ({ q: text, by: _by, ...query }) =>
            listMessages(context.deps, context.actor, {
              ...query,
              // A UUID that is no message's id may still be a client reference (many are).
              ...(kind === null ? {} : { [kind === "id" ? "client_reference" : kind]: text }),
            }),
          fieldOf,
        );
  const campaigns = await campaignNames(context, [
    ...list.rows.map((message) => message.campaign_id),
    ...(list.filters.campaign_id ? [list.filters.campaign_id] : []),
  ]);
  const status = list.read ? 200 : kind === "id" && by === "id" ? 404 : 400;
  const choices = (await context.deps.storage.campaigns.list(context.actor.organizationId))
    .map((campaign) => ({ value: campaign.id, label: campaign.name }))
    .sort((a, b) => a.label.localeCompare(b.label));
  // A campaign id in the URL that is none of these still shows, as typed, so it can be changed.
  const chosen = list.filters.campaign_id ?? "";
  if (chosen !== "" && !choices.some((choice) => choice.value === chosen)) {
    choices.unshift({ value: chosen, label: chosen });
  }
  return renderPage(
    status,
    <MessagesPage frame={frame} list={list} campaigns={campaigns} choices={choices} />,
  );
}

/** Messages: the newest first, found by id, phone number or client reference, by status. */
export const messageRoutes: PageRoute[] = [
  { method: "GET", pattern: "/messages", handle: messagesPage },
  messageRoute,
  cancelRoute,
];
