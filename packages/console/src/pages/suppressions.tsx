import {
  addSuppression,
  listSuppressions,
  removeSuppression,
  type SuppressionView,
} from "@tidings/core";
import {
  type FieldErrors,
  FormCard,
  FormProblems,
  fieldsOf,
  Layout,
  type PageFrame,
  PostForm,
  SelectField,
  TextField,
  Time,
} from "../components.js";
import {
  type PageContext,
  type PageRoute,
  redirectTo,
  renderPage,
  submitForm,
} from "../context.js";
import { type ListPage, ListTable, listHref, readList } from "../lists.js";

interface AddForm {
  channel: string;
  phone_number: string;
  note: string;
}

const EMPTY_FORM: AddForm = { channel: "sms", phone_number: "", note: "" };

const CHANNELS = [
  { value: "sms", label: "SMS" },
  { value: "viber", label: "Viber" },
] as const;

const CHANNEL_FILTER = [{ value: "", label: "Any channel" }, ...CHANNELS];

/** A removal the core refused: the row it was for (channel and hash) and its problems. */
interface Removal {
  channel: string;
  hash: string;
  note: string;
  errors: FieldErrors;
}

const SOURCES: Record<SuppressionView["source"], string> = {
  inbound: "Inbound (the person replied)",
  provider: "Provider (refused as opted out)",
  api: "API or console",
};

/** The row's remove button; one the person asked for needs a note saying why. */
function RemoveForm(props: {
  frame: PageFrame;
  row: SuppressionView & { phone_number: string };
  index: number;
  removal: Removal | null;
}) {
  const { row, frame } = props;
  const mine =
    props.removal !== null &&
    props.removal.channel === row.channel &&
    props.removal.hash === row.phone_number_hash
      ? props.removal
      : null;
  const needsNote = row.source !== "api";
  return (
    <PostForm
      frame={frame}
      action={`${frame.base}/suppressions/remove`}
      class={needsNote ? undefined : "inline"}
      label={`Remove the ${row.channel} suppression of ${row.phone_number}`}
      confirm={`Remove the ${row.channel} suppression of ${row.phone_number}? Sends to it are allowed again where consent allows.`}
    >
      <input type="hidden" name="channel" value={row.channel} />
      <input type="hidden" name="phone_number" value={row.phone_number} />
      {mine && <FormProblems errors={{ "": mine.errors[""] ?? [] }} />}
      {needsNote && (
        <TextField
          name="note"
          idPrefix={`remove-${props.index}-`}
          label="Why (required)"
          value={mine?.note ?? ""}
          errors={mine?.errors}
          hint="The person asked for this one: say how they asked to hear from you again."
        />
      )}
      <button
        type="submit"
        class="danger small"
        aria-label={`Remove the ${row.channel} suppression of ${row.phone_number}`}
      >
        Remove
      </button>
    </PostForm>
  );
}

function SuppressionsPage(props: {
  frame: PageFrame;
  list: ListPage<SuppressionView>;
  form: AddForm;
  errors: FieldErrors;
  removal: Removal | null;
}) {
  const { frame, list } = props;
  const filter = fieldsOf(list.filters, list.errors);
  const field = fieldsOf(props.form, props.errors);
  const filtered = Object.values(list.filters).some((value) => value !== "");
  return (
    <Layout frame={frame} section="suppressions" title="Suppressions">
      <p>
        Numbers that must not receive messages on a channel, whatever their consent says: the person
        replied STOP, the provider refused them as opted out, or someone added them here or by API.
        Numbers are kept only as a keyed hash (pseudonymised, not anonymous), so one shows only when
        you filter by it.
      </p>
      <ListTable
        frame={frame}
        path="/suppressions"
        list={list}
        heading={filtered ? "Matching suppressions" : "All suppressions"}
        empty={filtered ? "No suppression matches." : "No suppressions yet."}
        columns={["Number", "Channel", "Source", "Keyword", "Provider", "Note", "Since", ""]}
        filterLabel="Find suppressions"
        filters={
          <>
            <SelectField {...filter("channel")} label="Channel" options={CHANNEL_FILTER} />
            <TextField
              {...filter("phone_number")}
              label="Phone number"
              hint="In international form (+…); needed to see or remove one whose number is not shown."
            />
          </>
        }
      >
        {list.rows.map((row, index) => (
          <tr key={`${row.channel}-${row.phone_number_hash}`}>
            <td>
              {row.phone_number ?? (
                <span class="muted" title="The keyed hash of the number">
                  <code>{`${row.phone_number_hash.slice(0, 12)}…`}</code>
                </span>
              )}
            </td>
            <td>{row.channel}</td>
            <td>{SOURCES[row.source]}</td>
            <td>{row.keyword ?? "—"}</td>
            <td>{row.provider ?? "—"}</td>
            <td class="wrap">{row.note ?? "—"}</td>
            <td>
              <Time at={row.created_at} />
            </td>
            <td>
              {row.phone_number !== null ? (
                <RemoveForm
                  frame={frame}
                  row={{ ...row, phone_number: row.phone_number }}
                  index={index}
                  removal={props.removal}
                />
              ) : (
                <span class="muted">Filter by its number to remove</span>
              )}
            </td>
          </tr>
        ))}
      </ListTable>
      <FormCard
        frame={frame}
        heading="Add suppression"
        intro="For a person who asked by phone, e-mail or any other way: sends to the number on the channel are refused from now on, and its marketing consent turns off."
        action="/suppressions"
        errors={props.errors}
        button="Add suppression"
      >
        <SelectField {...field("channel")} idPrefix="add-" label="Channel" options={CHANNELS} />
        <TextField
          {...field("phone_number")}
          idPrefix="add-"
          label="Phone number"
          hint="In international form: + and the country code first."
        />
        <TextField
          {...field("note")}
          idPrefix="add-"
          label="Note"
          hint="Optional: how the person asked, e.g. Called support on 3 June."
        />
      </FormCard>
    </Layout>
  );
}

const listOf = (context: PageContext) =>
  readList(context, "/suppressions", ["channel", "phone_number"], (query) =>
    listSuppressions(context.deps, context.actor, query),
  );

/** The list as it is after a refused removal: the number's own suppressions. */
async function listForNumber(
  context: PageContext,
  phoneNumber: string,
): Promise<ListPage<SuppressionView>> {
  const filters = { channel: "", phone_number: phoneNumber };
  const answer = await listSuppressions(context.deps, context.actor, {
    phone_number: phoneNumber,
    limit: "25",
  });
  const page = answer.isOk() ? answer.value : null;
  return {
    rows: page?.data ?? [],
    filters,
    errors: {},
    first: null,
    next: page?.meta.next_cursor
      ? listHref(context.frame, "/suppressions", filters, page.meta.next_cursor)
      : null,
    read: page !== null,
  };
}

function page(
  context: PageContext,
  status: number,
  list: ListPage<SuppressionView>,
  form: AddForm,
  errors: FieldErrors,
  removal: Removal | null,
) {
  return renderPage(
    status,
    <SuppressionsPage
      frame={context.frame}
      list={list}
      form={form}
      errors={errors}
      removal={removal}
    />,
  );
}

/** `/suppressions?phone_number=…`, the page that shows (and can remove) the number's rows. */
const numberPath = (phoneNumber: string) =>
  `/suppressions?phone_number=${encodeURIComponent(phoneNumber)}`;

/**
 * Suppressions: the organization's, newest first (pages of 25), by channel and number; add one
 * (source `api`, as the API's); remove one (a note required when the person asked for it).
 */
export const suppressionRoutes: PageRoute[] = [
  {
    method: "GET",
    pattern: "/suppressions",
    async handle(context) {
      const list = await listOf(context);
      return page(context, list.read ? 200 : 400, list, EMPTY_FORM, {}, null);
    },
  },
  {
    method: "POST",
    pattern: "/suppressions",
    async handle(context) {
      const { form: posted } = context.request;
      const form: AddForm = {
        channel: posted.get("channel") ?? "",
        phone_number: posted.get("phone_number") ?? "",
        note: posted.get("note") ?? "",
      };
      const added = await submitForm(context, () =>
        addSuppression(context.deps, context.actor, {
          channel: form.channel,
          phone_number: form.phone_number,
          note: form.note.trim() === "" ? null : form.note,
        }),
      );
      if (added.isErr()) {
        return page(context, 400, await listOf(context), form, added.error.fields, null);
      }
      const number = added.value.phone_number ?? form.phone_number;
      return redirectTo(context.frame, numberPath(number), "suppression_added");
    },
  },
  {
    method: "POST",
    pattern: "/suppressions/remove",
    async handle(context) {
      const { form: posted } = context.request;
      const channel = posted.get("channel") ?? "";
      const phoneNumber = posted.get("phone_number") ?? "";
      const note = posted.get("note") ?? "";
      const removed = await submitForm(context, () =>
        removeSuppression(context.deps, context.actor, {
          channel,
          phone_number: phoneNumber,
          ...(note.trim() === "" ? {} : { note }),
        }),
      );
      if (removed.isOk()) {
        return redirectTo(context.frame, numberPath(phoneNumber), "suppression_removed");
      }
      const list = await listForNumber(context, phoneNumber);
      const row = list.rows.find((r) => r.channel === channel);
      const { note: noteErrors, ...others } = removed.error.fields;
      const general = Object.values(others).flat();
      if (row === undefined) {
        // Nothing to show it beside (gone already, or a number that is not one): say it above.
        return page(
          context,
          removed.error.error.type === "not_found" ? 404 : 400,
          { ...list, errors: { "": general.length > 0 ? general : (noteErrors ?? []) } },
          EMPTY_FORM,
          {},
          null,
        );
      }
      const removal: Removal = {
        channel,
        hash: row.phone_number_hash,
        note,
        errors: { ...(noteErrors ? { note: noteErrors } : {}), "": general },
      };
      return page(context, 400, list, EMPTY_FORM, {}, removal);
    },
  },
];
