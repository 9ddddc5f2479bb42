import {
  activateCampaign,
  type CampaignView,
  createCampaign,
  DEFAULT_TTL_SECONDS,
  deactivateCampaign,
  getCampaign,
  listCampaigns,
  updateCampaign,
} from "@tidings/core";
import {
  Badge,
  CheckboxField,
  CopyValue,
  type FieldErrors,
  FormProblems,
  Layout,
  Notice,
  type PageFrame,
  PostForm,
  SelectField,
  TextArea,
  TextField,
  Time,
} from "../components.js";
import {
  fieldErrorsOf,
  noticeOf,
  type PageContext,
  type PageRoute,
  redirectTo,
  renderPage,
} from "../context.js";

/** What the campaign form holds, as typed (so a refused form shows it again unchanged). */
interface CampaignForm {
  name: string;
  channel: string;
  category: string;
  sender: string;
  template: string;
  sms_fallback: boolean;
  ttl_seconds: string;
  status: string;
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
  ttl_seconds: String(DEFAULT_TTL_SECONDS),
  status: "inactive",
};

const formOf = (form: URLSearchParams): CampaignForm => ({
  name: form.get("name") ?? "",
  channel: form.get("channel") ?? "",
  category: form.get("category") ?? "",
  sender: form.get("sender") ?? "",
  template: form.get("template") ?? "",
  sms_fallback: form.get("sms_fallback") === "true",
  ttl_seconds: form.get("ttl_seconds") ?? "",
  status: form.get("status") ?? "",
});

const formOfCampaign = (campaign: CampaignView): CampaignForm => ({
  name: campaign.name,
  channel: campaign.channel,
  category: campaign.category,
  sender: campaign.sender,
  template: campaign.template,
  sms_fallback: campaign.sms_fallback,
  ttl_seconds: String(campaign.ttl_seconds),
  status: campaign.status,
});

/** A whole number stays a number; anything else goes as typed, for the rules to name. */
const ttlOf = (text: string): number | string | undefined => {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  return /^[0-9]{1,9}$/.test(trimmed) ? Number(trimmed) : trimmed;
};

const fieldOf = (path: string) => path;

const statusBadge = (status: string) =>
  status === "active" ? <Badge tone="good">Active</Badge> : <Badge tone="neutral">Inactive</Badge>;

function CampaignFields(props: { form: CampaignForm; errors: FieldErrors; creating: boolean }) {
  const { form, errors } = props;
  return (
    <>
      <TextField name="name" label="Name" value={form.name} errors={errors} required />
      <SelectField
        name="channel"
        label="Channel"
        value={form.channel}
        options={CHANNELS}
        errors={errors}
        disabled={!props.creating}
        hint={props.creating ? undefined : "Fixed once the campaign exists."}
      />
      <SelectField
        name="category"
        label="Category"
        value={form.category}
        options={CATEGORIES}
        errors={errors}
        disabled={!props.creating}
        hint={
          props.creating
            ? "OTP templates need {{pin}}; promotional messages go only to consenting profiles."
            : "Fixed once the campaign exists."
        }
      />
      <TextField
        name="sender"
        label="Sender"
        value={form.sender}
        errors={errors}
        required
        hint="The Viber sender name or SMS sender ID."
      />
      <TextArea
        name="template"
        label="Template"
        value={form.template}
        errors={errors}
        rows={5}
        hint="Placeholders such as {{first_name}} are filled from the send's params."
      />
      <CheckboxField
        name="sms_fallback"
        label="SMS fallback"
        checked={form.sms_fallback}
        errors={errors}
        hint="Viber only: send an SMS when the recipient is not on Viber."
      />
      <TextField
        name="ttl_seconds"
        label="TTL (seconds)"
        type="number"
        value={form.ttl_seconds}
        errors={errors}
        hint="How long a message may wait for delivery: 30 seconds to 14 days (1209600)."
      />
    </>
  );
}

function CampaignsPage(props: {
  frame: PageFrame;
  campaigns: CampaignView[];
  status: string;
  form: CampaignForm;
  errors: FieldErrors;
  notice: string | null;
}) {
  const { frame } = props;
  return (
    <Layout frame={frame} section="campaigns" title="Campaigns">
      {props.notice && <Notice>{props.notice}</Notice>}
      <section aria-labelledby="list-heading">
        <h2 id="list-heading">All campaigns</h2>
        <form method="get" action={`${frame.base}/campaigns`} class="filters">
          <SelectField
            name="status"
            label="Status"
            value={props.status}
            options={[{ value: "", label: "Any" }, ...STATUSES]}
          />
          <button type="submit" class="secondary">
            Filter
          </button>
        </form>
        {props.campaigns.length === 0 ? (
          <p class="empty">No campaigns{props.status ? ` with status ${props.status}` : ""} yet.</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Campaign ID</th>
                  <th scope="col">Channel</th>
                  <th scope="col">Category</th>
                  <th scope="col">Status</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {props.campaigns.map((campaign) => (
                  <tr key={campaign.campaign_id}>
                    <td class="wrap">
                      <a href={`${frame.base}/campaigns/${campaign.campaign_id}`}>
                        {campaign.name}
                      </a>
                    </td>
                    <td>
                      <code>{campaign.campaign_id}</code>
                    </td>
                    <td>
                      {campaign.channel === "viber"
                        ? campaign.sms_fallback
                          ? "Viber, SMS fallback"
                          : "Viber"
                        : "SMS"}
                    </td>
                    <td>{campaign.category}</td>
                    <td>{statusBadge(campaign.status)}</td>
                    <td>
                      <Time at={campaign.updated_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section aria-labelledby="create-heading" class="card">
        <h2 id="create-heading">New campaign</h2>
        <p class="hint">
          Choose the channel and category, write the template, set the delivery options, then choose
          whether it starts active.
        </p>
        <PostForm frame={frame} action={`${frame.base}/campaigns`} label="New campaign">
          <FormProblems errors={props.errors} />
          <CampaignFields form={props.form} errors={props.errors} creating />
          <SelectField
            name="status"
            label="Status"
            value={props.form.status}
            options={STATUSES}
            errors={props.errors}
          />
          <button type="submit">Create campaign</button>
        </PostForm>
      </section>
    </Layout>
  );
}

function CampaignPage(props: {
  frame: PageFrame;
  campaign: CampaignView;
  form: CampaignForm;
  errors: FieldErrors;
  notice: string | null;
}) {
  const { frame, campaign } = props;
  const path = `${frame.base}/campaigns/${campaign.campaign_id}`;
  return (
    <Layout frame={frame} section="campaigns" title={`Campaign ${campaign.name}`}>
      {props.notice && <Notice>{props.notice}</Notice>}
      <dl class="facts">
        <dt>Campaign ID</dt>
        <dd>
          <CopyValue value={campaign.campaign_id} label="Copy ID" />
        </dd>
        <dt>Status</dt>
        <dd>{statusBadge(campaign.status)}</dd>
        <dt>Channel</dt>
        <dd>{campaign.channel === "viber" ? "Viber" : "SMS"}</dd>
        <dt>Category</dt>
        <dd>{campaign.category}</dd>
        <dt>Created</dt>
        <dd>
          <Time at={campaign.created_at} />
        </dd>
        <dt>Updated</dt>
        <dd>
          <Time at={campaign.updated_at} />
        </dd>
      </dl>
      <div class="actions">
        {campaign.status === "active" ? (
          <PostForm
            frame={frame}
            action={`${path}/deactivate`}
            confirm="Deactivate this campaign? Sends to it will be refused."
          >
            <button type="submit" class="danger">
              Deactivate
            </button>
          </PostForm>
        ) : (
          <PostForm frame={frame} action={`${path}/activate`}>
            <button type="submit">Activate</button>
          </PostForm>
        )}
      </div>
      <section aria-labelledby="edit-heading" class="card">
        <h2 id="edit-heading">Edit</h2>
        <PostForm frame={frame} action={path} label="Edit campaign">
          <FormProblems errors={props.errors} />
          <CampaignFields form={props.form} errors={props.errors} creating={false} />
          <button type="submit">Save</button>
        </PostForm>
      </section>
    </Layout>
  );
}

async function listPage(context: PageContext, form: CampaignForm, errors: FieldErrors) {
  const status = context.request.query.get("status") ?? "";
  const listed = await listCampaigns(context.deps, context.actor, { limit: "100" });
  if (listed.isErr()) throw new Error(listed.error.message);
  // Newest first (the list's own order), as an operator looks for the latest.
  const campaigns = listed.value.data.filter(
    (campaign) => status === "" || campaign.status === status,
  );
  const failed = Object.keys(errors).length > 0;
  return renderPage(
    failed ? 400 : 200,
    <CampaignsPage
      frame={context.frame}
      campaigns={campaigns}
      status={status}
      form={form}
      errors={errors}
      notice={noticeOf(context.request)}
    />,
  );
}

async function campaignPage(context: PageContext, form?: CampaignForm, errors: FieldErrors = {}) {
  const found = await getCampaign(context.deps, context.actor, context.params.id ?? "");
  if (found.isErr()) return context.notFound();
  const failed = Object.keys(errors).length > 0;
  return renderPage(
    failed ? 400 : 200,
    <CampaignPage
      frame={context.frame}
      campaign={found.value}
      form={form ?? formOfCampaign(found.value)}
      errors={errors}
      notice={noticeOf(context.request)}
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
      const created = await createCampaign(context.deps, context.actor, {
        name: form.name,
        channel: form.channel,
        category: form.category,
        sender: form.sender,
        template: form.template,
        sms_fallback: form.sms_fallback,
        ttl_seconds: ttlOf(form.ttl_seconds),
        status: form.status === "" ? undefined : form.status,
      });
      if (created.isErr()) return listPage(context, form, fieldErrorsOf(created.error, fieldOf));
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
      const id = context.params.id ?? "";
      const current = await getCampaign(context.deps, context.actor, id);
      if (current.isErr()) return context.notFound();
      const form = {
        ...formOf(context.request.form),
        channel: current.value.channel,
        category: current.value.category,
        status: current.value.status,
      };
      const updated = await updateCampaign(context.deps, context.actor, id, {
        name: form.name,
        sender: form.sender,
        template: form.template,
        sms_fallback: form.sms_fallback,
        ttl_seconds: ttlOf(form.ttl_seconds),
      });
      if (updated.isErr()) {
        if (updated.error.type === "not_found") return context.notFound();
        return campaignPage(context, form, fieldErrorsOf(updated.error, fieldOf));
      }
      return redirectTo(context.frame, `/campaigns/${id}`, "campaign_saved");
    },
  },
  {
    method: "POST",
    pattern: "/campaigns/:id/activate",
    async handle(context) {
      const id = context.params.id ?? "";
      const done = await activateCampaign(context.deps, context.actor, id);
      if (done.isErr()) return context.notFound();
      return redirectTo(context.frame, `/campaigns/${id}`, "campaign_activated");
    },
  },
  {
    method: "POST",
    pattern: "/campaigns/:id/deactivate",
    async handle(context) {
      const id = context.params.id ?? "";
      const done = await deactivateCampaign(context.deps, context.actor, id);
      if (done.isErr()) return context.notFound();
      return redirectTo(context.frame, `/campaigns/${id}`, "campaign_deactivated");
    },
  },
];
