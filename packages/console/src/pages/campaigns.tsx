import {
  activateCampaign,
  type CampaignView,
  createCampaign,
  DEFAULT_TTL_SECONDS,
  type DomainError,
  deactivateCampaign,
  getCampaign,
  listCampaigns,
  RECOMMENDED_SENDING_WINDOW,
  type SendingWindowView,
  toSendingWindowView,
  updateCampaign,
  WEEKDAYS,
} from "@tidings/core";
import {
  ActionButton,
  Badge,
  CheckboxField,
  CheckboxGroup,
  CopyValue,
  EditCard,
  Fact,
  type FieldErrors,
  FormCard,
  fieldsOf,
  Layout,
  type PageFrame,
  SelectField,
  TextArea,
  TextField,
  Time,
} from "../components.js";
import {
  changeRoute,
  fieldErrorsOf,
  type PageContext,
  type PageRoute,
  redirectTo,
  renderPage,
  submitForm,
} from "../context.js";
import { type ListPage, ListTable, readList } from "../lists.js";

/** What the campaign form holds, as typed (so a refused form shows it again unchanged). */
interface CampaignForm {
  name: string;
  channel: string;
  category: string;
  sender: string;
  template: string;
  sms_fallback: boolean;
  sms_sender: string;
  track_links: boolean;
  ttl_seconds: string;
  status: string;
  /** `promotional`, `recommended`, `none` or `custom` (the window_* fields). */
  sending_window: string;
  window_days: string[];
  window_start: string;
  window_end: string;
  window_holidays: boolean;
}

const RECOMMENDED = toSendingWindowView(RECOMMENDED_SENDING_WINDOW) as SendingWindowView;

/** A window in words: `mon, tue 09:00–20:00 in the recipient's local time, public holidays skipped`. */
const windowInWords = (window: SendingWindowView | null): string =>
  window === null
    ? "Any time"
    : `${window.days.join(", ")} ${window.start}–${window.end} in the recipient's local time${window.skip_public_holidays ? ", public holidays skipped" : ""}`;

const WINDOW_CHOICES = [
  {
    value: "promotional",
    label: `If promotional, the recommended window (${windowInWords(RECOMMENDED)}); otherwise any time`,
  },
  { value: "recommended", label: `Recommended: ${windowInWords(RECOMMENDED)}` },
  { value: "none", label: "Any time (no window)" },
  { value: "custom", label: "Custom: the days and hours below" },
];

/** The form's window fields set to `window`, the recommended one when there is none. */
const windowFields = (window: SendingWindowView | null) => ({
  window_days: [...(window ?? RECOMMENDED).days],
  window_start: (window ?? RECOMMENDED).start,
  window_end: (window ?? RECOMMENDED).end,
  window_holidays: (window ?? RECOMMENDED).skip_public_holidays,
});

const sameWindow = (a: SendingWindowView, b: SendingWindowView) =>
  a.start === b.start &&
  a.end === b.end &&
  a.skip_public_holidays === b.skip_public_holidays &&
  a.days.join() === b.days.join();

/** The `sending_window` a form asks for; a choice that is none of ours goes on to be refused. */
function windowOf(form: CampaignForm): unknown {
  switch (form.sending_window) {
    case "":
      // A form without the field (an older page) leaves the window as it is.
      return undefined;
    case "promotional":
      return form.category === "promotional" ? RECOMMENDED : null;
    case "recommended":
      return RECOMMENDED;
    case "none":
      return null;
    case "custom":
      return {
        days: form.window_days,
        start: form.window_start.trim(),
        end: form.window_end.trim(),
        skip_public_holidays: form.window_holidays,
      };
    default:
      return form.sending_window;
  }
}

/** The form field of a window's problem: `sending_window.start` is beside `window_start`. */
function campaignFieldErrors(error: DomainError) {
  return fieldErrorsOf(
    error.type === "validation"
      ? {
          ...error,
          issues: error.issues.map((issue) => {
            const part = /^sending_window\.(days|start|end|skip_public_holidays)/.exec(issue.path);
            if (part === null) return issue;
            const field = part[1] === "skip_public_holidays" ? "holidays" : part[1];
            return { ...issue, path: `window_${field}` };
          }),
        }
      : error,
  );
}

const CHANNELS = [
  { value: "viber", label: "Viber" },
  { value: "sms", label: "SMS" },
];
const CATEGORIES = [
  { value: "otp", label: "OTP" },
  { value: "transactional", label: "Transactional" },
  { value: "promotional", label: "Promotional" },
];
const STATUSES = [
  { value: "inactive", label: "Inactive" },
  { value: "active", label: "Active" },
];

const EMPTY_FORM: CampaignForm = {
  name: "",
  channel: "sms",
  category: "transactional",
  sender: "",
  template: "",
  sms_fallback: false,
  sms_sender: "",
  track_links: false,
  ttl_seconds: String(DEFAULT_TTL_SECONDS),
  status: "inactive",
  // Promotional campaigns start with the recommended window, and the form says so.
  sending_window: "promotional",
  ...windowFields(null),
};

const formOf = (form: URLSearchParams): CampaignForm => ({
  name: form.get("name") ?? "",
  channel: form.get("channel") ?? "",
  category: form.get("category") ?? "",
  sender: form.get("sender") ?? "",
  template: form.get("template") ?? "",
  sms_fallback: form.get("sms_fallback") === "true",
  sms_sender: form.get("sms_sender") ?? "",
  track_links: form.get("track_links") === "true",
  ttl_seconds: form.get("ttl_seconds") ?? "",
  status: form.get("status") ?? "",
  sending_window: form.get("sending_window") ?? "",
  window_days: form.getAll("window_days"),
  window_start: form.get("window_start") ?? "",
  window_end: form.get("window_end") ?? "",
  window_holidays: form.get("window_holidays") === "true",
});

const formOfCampaign = (campaign: CampaignView): CampaignForm => ({
  name: campaign.name,
  channel: campaign.channel,
  category: campaign.category,
  sender: campaign.sender,
  template: campaign.template,
  sms_fallback: campaign.sms_fallback,
  sms_sender: campaign.sms_sender ?? "",
  track_links: campaign.track_links,
  ttl_seconds: String(campaign.ttl_seconds),
  status: campaign.status,
  sending_window:
    campaign.sending_window === null
      ? "none"
      : sameWindow(campaign.sending_window, RECOMMENDED)
        ? "recommended"
        : "custom",
  ...windowFields(campaign.sending_window),
});

/** A whole number stays a number; anything else goes as typed, for the rules to name. */
const ttlOf = (text: string): number | string | undefined => {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  return /^[0-9]{1,9}$/.test(trimmed) ? Number(trimmed) : trimmed;
};

const statusBadge = (status: string) =>
  status === "active" ? <Badge tone="good">Active</Badge> : <Badge tone="neutral">Inactive</Badge>;

/** Why channel and category cannot change now, or nothing when they can. */
const FIXED_WHILE_ACTIVE = "Changes only while the campaign is inactive: deactivate it first.";

function CampaignFields(props: { form: CampaignForm; errors: FieldErrors; active: boolean }) {
  const field = fieldsOf(props.form, props.errors);
  return (
    <>
      <TextField {...field("name")} label="Name" required />
      <SelectField
        {...field("channel")}
        label="Channel"
        options={CHANNELS}
        hint={props.active ? FIXED_WHILE_ACTIVE : undefined}
      />
      <SelectField
        {...field("category")}
        label="Category"
        options={CATEGORIES}
        hint={
          props.active
            ? FIXED_WHILE_ACTIVE
            : "OTP templates need {{pin}}; promotional messages go only to consenting profiles."
        }
      />
      <TextField
        {...field("sender")}
        label="Sender"
        required
        hint="The Viber sender name or SMS sender ID."
      />
      <TextArea
        {...field("template")}
        label="Template"
        rows={5}
        hint="Placeholders such as {{first_name}} are filled from the send's params."
      />
      <CheckboxField
        name="sms_fallback"
        label="SMS fallback"
        checked={props.form.sms_fallback}
        errors={props.errors}
        hint="Viber only: send an SMS when the recipient is not on Viber."
      />
      <TextField
        {...field("sms_sender")}
        label="SMS fallback sender"
        hint="Viber only: the SMS sender ID or number the fallback SMS comes from; empty for the sender above."
      />
      <CheckboxField
        name="track_links"
        label="Track links"
        checked={props.form.track_links}
        errors={props.errors}
        hint="The template's http(s) links go out as short links that count clicks (message.clicked)."
      />
      <TextField
        {...field("ttl_seconds")}
        label="TTL (seconds)"
        type="number"
        hint="How long a message may wait for delivery: 30 seconds to 14 days (1209600)."
      />
      <SelectField
        {...field("sending_window")}
        label="Sending window"
        options={WINDOW_CHOICES}
        hint="When messages may reach the recipient, in their local time (the profile's time zone, else the number's). A send outside it is held, scheduled, until the window opens."
      />
      <CheckboxGroup
        name="window_days"
        label="Custom window: days"
        options={WEEKDAYS}
        checked={props.form.window_days}
        errors={props.errors}
      />
      <TextField {...field("window_start")} label="Custom window: from (HH:MM)" />
      <TextField
        {...field("window_end")}
        label="Custom window: until (HH:MM)"
        hint="Up to 24:00, the end of the day; after the start."
      />
      <CheckboxField
        name="window_holidays"
        label="Custom window: skip public holidays"
        checked={props.form.window_holidays}
        errors={props.errors}
        hint="Of the number's country, on the recipient's local date."
      />
    </>
  );
}

const channelOf = (campaign: CampaignView) =>
  campaign.channel === "viber" ? (campaign.sms_fallback ? "Viber, SMS fallback" : "Viber") : "SMS";

function CampaignsPage(props: {
  frame: PageFrame;
  list: ListPage<CampaignView>;
  form: CampaignForm;
  errors: FieldErrors;
}) {
  const { frame, list } = props;
  const filter = fieldsOf(list.filters, list.errors);
  const field = fieldsOf(props.form, props.errors);
  return (
    <Layout frame={frame} section="campaigns" title="Campaigns">
      <ListTable
        frame={frame}
        path="/campaigns"
        list={list}
        heading="All campaigns"
        empty={list.filters.status ? `No ${list.filters.status} campaigns.` : "No campaigns yet."}
        columns={["Name", "Campaign ID", "Channel", "Category", "Status", "Updated"]}
        filterLabel="Filter campaigns"
        filters={
          <SelectField
            {...filter("status")}
            label="Show"
            idPrefix="filter-"
            options={[{ value: "", label: "All campaigns" }, ...STATUSES]}
          />
        }
      >
        {list.rows.map((campaign) => (
          <tr key={campaign.campaign_id}>
            <td class="wrap">
              <a href={`${frame.base}/campaigns/${campaign.campaign_id}`}>{campaign.name}</a>
            </td>
            <td>
              <code>{campaign.campaign_id}</code>
            </td>
            <td>{channelOf(campaign)}</td>
            <td>{campaign.category}</td>
            <td>{statusBadge(campaign.status)}</td>
            <td>
              <Time at={campaign.updated_at} />
            </td>
          </tr>
        ))}
      </ListTable>
      <FormCard
        frame={frame}
        heading="New campaign"
        intro="Choose the channel and category, write the template, set the delivery options, then choose whether it starts active."
        action="/campaigns"
        errors={props.errors}
        button="Create campaign"
      >
        <CampaignFields form={props.form} errors={props.errors} active={false} />
        <SelectField {...field("status")} label="Status" options={STATUSES} />
      </FormCard>
    </Layout>
  );
}

function CampaignPage(props: {
  frame: PageFrame;
  campaign: CampaignView;
  form: CampaignForm;
  errors: FieldErrors;
}) {
  const { frame, campaign } = props;
  const path = `/campaigns/${campaign.campaign_id}`;
  return (
    <Layout frame={frame} section="campaigns" title={`Campaign ${campaign.name}`}>
      <dl class="facts">
        <Fact term="Campaign ID">
          <CopyValue value={campaign.campaign_id} label="Copy ID" />
        </Fact>
        <Fact term="Status">{statusBadge(campaign.status)}</Fact>
        <Fact term="Channel">{channelOf(campaign)}</Fact>
        <Fact term="Category">{campaign.category}</Fact>
        <Fact term="Sender" wrap>
          {campaign.sender}
        </Fact>
        <Fact term="Sending window" wrap>
          {windowInWords(campaign.sending_window)}
        </Fact>
        <Fact term="Messages">
          <a href={`${frame.base}/messages?campaign_id=${campaign.campaign_id}`}>
            Messages sent through this campaign
          </a>
        </Fact>
        <Fact term="Created">
          <Time at={campaign.created_at} />
        </Fact>
        <Fact term="Updated">
          <Time at={campaign.updated_at} />
        </Fact>
      </dl>
      <div class="actions">
        {campaign.status === "active" ? (
          <ActionButton
            frame={frame}
            action={`${path}/deactivate`}
            look="danger"
            confirm="Deactivate this campaign? Sends to it will be refused."
          >
            Deactivate
          </ActionButton>
        ) : (
          <ActionButton frame={frame} action={`${path}/activate`}>
            Activate
          </ActionButton>
        )}
      </div>
      <EditCard frame={frame} action={path} label="Edit campaign" errors={props.errors}>
        <CampaignFields
          form={props.form}
          errors={props.errors}
          active={campaign.status === "active"}
        />
      </EditCard>
    </Layout>
  );
}

async function listPage(context: PageContext, form: CampaignForm, errors: FieldErrors) {
  const list = await readList(context, "/campaigns", ["status"], (query) =>
    listCampaigns(context.deps, context.actor, query),
  );
  const failed = Object.keys(errors).length > 0 || Object.keys(list.errors).length > 0;
  return renderPage(
    failed ? 400 : 200,
    <CampaignsPage frame={context.frame} list={list} form={form} errors={errors} />,
  );
}

async function campaignPage(
  context: PageContext,
  form?: CampaignForm,
  errors: FieldErrors = {},
  status = Object.keys(errors).length > 0 ? 400 : 200,
) {
  const found = await getCampaign(context.deps, context.actor, context.id);
  if (found.isErr()) return context.notFound();
  return renderPage(
    status,
    <CampaignPage
      frame={context.frame}
      campaign={found.value}
      form={form ?? formOfCampaign(found.value)}
      errors={errors}
    />,
  );
}

/** Campaigns: list (filter by status), create, edit, activate and deactivate. */
export const campaignRoutes: PageRoute[] = [
  { method: "GET", pattern: "/campaigns", handle: (context) => listPage(context, EMPTY_FORM, {}) },
  {
    method: "POST",
    pattern: "/campaigns",
    async handle(context) {
      const form = formOf(context.request.form);
      const created = await submitForm(context, () =>
        createCampaign(context.deps, context.actor, {
          name: form.name,
          channel: form.channel,
          category: form.category,
          sender: form.sender,
          template: form.template,
          sms_fallback: form.sms_fallback,
          sms_sender: form.sms_sender.trim() === "" ? undefined : form.sms_sender,
          track_links: form.track_links,
          ttl_seconds: ttlOf(form.ttl_seconds),
          status: form.status === "" ? undefined : form.status,
          sending_window: windowOf(form),
        }),
      );
      if (created.isErr()) return listPage(context, form, campaignFieldErrors(created.error.error));
      return redirectTo(
        context.frame,
        `/campaigns/${created.value.campaign_id}`,
        "campaign_created",
      );
    },
  },
  { method: "GET", pattern: "/campaigns/:id", handle: (context) => campaignPage(context) },
  {
    method: "POST",
    pattern: "/campaigns/:id",
    async handle(context) {
      const current = await getCampaign(context.deps, context.actor, context.id);
      if (current.isErr()) return context.notFound();
      const form = { ...formOf(context.request.form), status: current.value.status };
      const updated = await submitForm(context, () =>
        updateCampaign(context.deps, context.actor, context.id, {
          name: form.name,
          channel: form.channel === "" ? undefined : form.channel,
          category: form.category === "" ? undefined : form.category,
          sender: form.sender,
          template: form.template,
          sms_fallback: form.sms_fallback,
          sms_sender: form.sms_sender.trim() === "" ? null : form.sms_sender,
          track_links: form.track_links,
          ttl_seconds: ttlOf(form.ttl_seconds),
          sending_window: windowOf(form),
        }),
      );
      if (updated.isErr()) {
        const { error } = updated.error;
        const fields = campaignFieldErrors(error);
        if (error.type === "not_found") return context.notFound();
        if (error.type === "conflict" && error.code === "campaign_active") {
          // Beside each field that was changed; what was typed stays, to save after deactivating.
          const errors: FieldErrors = {};
          if (form.channel !== current.value.channel) errors.channel = [error.message];
          if (form.category !== current.value.category) errors.category = [error.message];
          return campaignPage(context, form, errors, 409);
        }
        return campaignPage(context, form, fields);
      }
      return redirectTo(context.frame, `/campaigns/${context.id}`, "campaign_saved");
    },
  },
  changeRoute(
    "/campaigns/:id/activate",
    ({ deps, actor, id }) => activateCampaign(deps, actor, id),
    (id) => `/campaigns/${id}`,
    "campaign_activated",
  ),
  changeRoute(
    "/campaigns/:id/deactivate",
    ({ deps, actor, id }) => deactivateCampaign(deps, actor, id),
    (id) => `/campaigns/${id}`,
    "campaign_deactivated",
  ),
];
