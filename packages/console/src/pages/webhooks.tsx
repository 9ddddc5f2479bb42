import {
  createWebhook,
  type DeliveryWithAttemptsView,
  deleteWebhook,
  getWebhook,
  listWebhookDeliveries,
  listWebhooks,
  rotateWebhookSecret,
  TOPICS,
  testWebhook,
  updateWebhook,
  type WebhookTestResult,
  type WebhookView,
  type WebhookWithSecret,
} from "@tidings/core";
import {
  ActionButton,
  Badge,
  CheckboxGroup,
  CopyValue,
  CreatedSecrets,
  EditCard,
  Fact,
  type FieldErrors,
  FormCard,
  fieldsOf,
  Layout,
  Notice,
  type PageFrame,
  RecordTable,
  SelectField,
  shownUrl,
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
import { FilterForm, type ListPage, Pager, readList } from "../lists.js";
import { DELIVERY_STATUSES, DeliveryList, deliveryRoutes, withAttempts } from "./deliveries.js";

interface WebhookForm {
  url: string;
  topics: string[];
  status: string;
  description: string;
}

const EMPTY_FORM: WebhookForm = { url: "", topics: [...TOPICS], status: "active", description: "" };

const STATUSES = [
  { value: "active", label: "Active" },
  { value: "inactive", label: "Inactive" },
];

const formOf = (form: URLSearchParams): WebhookForm => ({
  url: form.get("url") ?? "",
  topics: form.getAll("topics"),
  status: form.get("status") ?? "",
  description: form.get("description") ?? "",
});

const inputOf = (form: WebhookForm) => ({
  url: form.url.trim(),
  topics: form.topics,
  status: form.status === "" ? undefined : form.status,
  description: form.description.trim() === "" ? null : form.description,
});

const statusBadge = (webhook: Pick<WebhookView, "status" | "disabled_reason">) =>
  webhook.status === "active" ? (
    <Badge tone="good">Active</Badge>
  ) : webhook.disabled_reason === "failing" ? (
    <Badge tone="bad">Disabled: failing</Badge>
  ) : (
    <Badge tone="bad">Inactive</Badge>
  );

function WebhookFields(props: { form: WebhookForm; errors: FieldErrors; devMode: boolean }) {
  const { form, errors } = props;
  const field = fieldsOf(form, errors);
  return (
    <>
      <TextField
        {...field("url")}
        label="URL"
        type="url"
        required
        hint={
          props.devMode
            ? "An https or http address that receives signed POSTs (http and this machine's addresses only in development mode)."
            : "An https address that receives signed POSTs."
        }
      />
      <CheckboxGroup
        name="topics"
        label="Topics"
        options={TOPICS}
        checked={form.topics}
        errors={errors}
      />
      <SelectField {...field("status")} label="Status" options={STATUSES} />
      <TextArea {...field("description")} label="Description" rows={2} />
    </>
  );
}

function WebhooksPage(props: {
  frame: PageFrame;
  webhooks: WebhookView[];
  form: WebhookForm;
  errors: FieldErrors;
  created: WebhookWithSecret | null;
}) {
  const { frame, created } = props;
  return (
    <Layout frame={frame} section="webhooks" title="Webhooks">
      {created && (
        <CreatedSecrets
          heading="Webhook created"
          secrets={[
            {
              label: "Signing secret",
              value: created.signing_secret,
              copyLabel: "Copy signing secret",
            },
          ]}
        >
          <strong>The signing secret is shown only now.</strong> The receiver checks each request's
          signature with it.{" "}
          <a href={`${frame.base}/webhooks/${created.webhook_id}`}>Open the webhook</a>
        </CreatedSecrets>
      )}
      <RecordTable
        id="list"
        heading="Subscriptions"
        empty="No webhook subscriptions yet."
        columns={["URL", "Topics", "Status", "Description", "Updated"]}
        count={props.webhooks.length}
      >
        {props.webhooks.map((webhook) => (
          <tr key={webhook.webhook_id}>
            <td class="wrap">
              <a href={`${frame.base}/webhooks/${webhook.webhook_id}`}>{shownUrl(webhook.url)}</a>
            </td>
            <td>{webhook.topics.join(", ")}</td>
            <td>{statusBadge(webhook)}</td>
            <td class="wrap">{webhook.description ?? ""}</td>
            <td>
              <Time at={webhook.updated_at} />
            </td>
          </tr>
        ))}
      </RecordTable>
      <FormCard
        frame={frame}
        heading="New webhook"
        action="/webhooks"
        errors={props.errors}
        button="Create webhook"
      >
        <WebhookFields form={props.form} errors={props.errors} devMode={frame.devMode} />
      </FormCard>
    </Layout>
  );
}

interface WebhookExtras {
  rotated?: string | undefined;
  test?: WebhookTestResult | undefined;
}

/** A subscription's deliveries as its page shows them: one filtered page of the log. */
type DeliveryLog = ListPage<DeliveryWithAttemptsView>;

/** "failing" is the API's `failing=true`: pending, with the last attempt failed. */
const FAILING = "failing";

const DELIVERY_STATUS_OPTIONS = [
  { value: "", label: "Any" },
  { value: FAILING, label: "failing (pending, last attempt failed)" },
  ...DELIVERY_STATUSES.map((status) => ({ value: status, label: status })),
];

function WebhookDeliveries(props: { frame: PageFrame; path: string; log: DeliveryLog }) {
  const { frame, log } = props;
  return (
    <section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries</h2>
      <FilterForm frame={frame} path={props.path} label="Filter deliveries" errors={log.errors}>
        <SelectField
          name="status"
          label="Delivery status"
          idPrefix="deliveries-"
          value={log.filters.status}
          options={DELIVERY_STATUS_OPTIONS}
          errors={log.errors}
        />
      </FilterForm>
      <DeliveryList frame={frame} deliveries={log.rows} back="webhook" />
      <Pager list={log} />
    </section>
  );
}

function WebhookPage(props: {
  frame: PageFrame;
  webhook: WebhookView;
  form: WebhookForm;
  errors: FieldErrors;
  extras: WebhookExtras;
  log: DeliveryLog;
}) {
  const { frame, webhook, extras } = props;
  const path = `/webhooks/${webhook.webhook_id}`;
  return (
    <Layout frame={frame} section="webhooks" title="Webhook">
      {extras.rotated && (
        <CreatedSecrets
          heading="Secret rotated"
          secrets={[
            { label: "Signing secret", value: extras.rotated, copyLabel: "Copy signing secret" },
          ]}
        >
          <strong>The new signing secret is shown only now.</strong> The old one no longer signs
          anything.
        </CreatedSecrets>
      )}
      {extras.test && (
        <Notice tone={extras.test.success ? "good" : "bad"}>
          {extras.test.success
            ? `Test event delivered: the receiver answered ${extras.test.status_code} in ${extras.test.duration_ms} ms.`
            : `Test event not delivered: ${
                extras.test.status_code !== null
                  ? `the receiver answered ${extras.test.status_code}`
                  : (extras.test.error ?? "no answer")
              } (${extras.test.duration_ms} ms).`}
        </Notice>
      )}
      <dl class="facts">
        <Fact term="Webhook ID">
          <CopyValue value={webhook.webhook_id} label="Copy ID" />
        </Fact>
        <Fact term="URL" wrap>
          {shownUrl(webhook.url)}
        </Fact>
        <Fact term="Status">
          {statusBadge(webhook)}
          {webhook.disabled_reason === "failing" && (
            <p>
              Tidings turned this subscription off: every delivery attempt failed for days. Fix the
              receiver and press Enable; send the cancelled deliveries again with Redeliver below,
              or all at once with the API's recover.
            </p>
          )}
        </Fact>
        <Fact term="Topics">{webhook.topics.join(", ")}</Fact>
        <Fact term="Created">
          <Time at={webhook.created_at} />
        </Fact>
      </dl>
      <div class="actions">
        {webhook.status === "inactive" && (
          <ActionButton frame={frame} action={`${path}/enable`}>
            Enable
          </ActionButton>
        )}
        <ActionButton frame={frame} action={`${path}/test`} look="secondary">
          Send test
        </ActionButton>
        <ActionButton
          frame={frame}
          action={`${path}/rotate-secret`}
          look="secondary"
          confirm="Rotate the signing secret? The current one stops working at once."
        >
          Rotate secret
        </ActionButton>
        <ActionButton
          frame={frame}
          action={`${path}/delete`}
          look="danger"
          confirm="Delete this webhook? Its pending deliveries are cancelled."
        >
          Delete
        </ActionButton>
      </div>
      <WebhookDeliveries frame={frame} path={path} log={props.log} />
      <EditCard frame={frame} action={path} label="Edit webhook" errors={props.errors}>
        <WebhookFields form={props.form} errors={props.errors} devMode={frame.devMode} />
      </EditCard>
    </Layout>
  );
}

async function listPage(
  context: PageContext,
  form: WebhookForm,
  errors: FieldErrors,
  created: WebhookWithSecret | null,
  status = 200,
) {
  const listed = await listWebhooks(context.deps, context.actor);
  if (listed.isErr()) throw new Error(listed.error.message);
  return renderPage(
    status,
    <WebhooksPage
      frame={context.frame}
      webhooks={listed.value.data}
      form={form}
      errors={errors}
      created={created}
    />,
  );
}

async function webhookPage(
  context: PageContext,
  options: {
    form?: WebhookForm;
    errors?: FieldErrors;
    extras?: WebhookExtras;
    status?: number;
  } = {},
) {
  const found = await getWebhook(context.deps, context.actor, context.id);
  if (found.isErr()) return context.notFound();
  const webhook = found.value;
  const log = await deliveryLog(context, webhook.webhook_id);
  return renderPage(
    options.status ?? (Object.keys(log.errors).length > 0 ? 400 : 200),
    <WebhookPage
      frame={context.frame}
      webhook={webhook}
      form={
        options.form ?? {
          url: webhook.url,
          topics: webhook.topics,
          status: webhook.status,
          description: webhook.description ?? "",
        }
      }
      errors={options.errors ?? {}}
      extras={options.extras ?? {}}
      log={log}
    />,
  );
}

/** One page of a subscription's deliveries with their attempts, filtered as the URL says. */
async function deliveryLog(context: PageContext, webhookId: string): Promise<DeliveryLog> {
  const list = await readList(
    context,
    `/webhooks/${webhookId}`,
    ["status"],
    (query) => {
      const { status, ...rest } = query;
      const asked = status === FAILING ? { ...rest, failing: "true" } : query;
      return listWebhookDeliveries(context.deps, context.actor, webhookId, asked);
    },
    (parameter) => (parameter === "failing" ? "status" : parameter),
  );
  return { ...list, rows: await withAttempts(context, list.rows) };
}

/** Webhooks: subscriptions (create, edit, enable, rotate, test, delete) and Redeliver. */
export const webhookRoutes: PageRoute[] = [
  {
    method: "GET",
    pattern: "/webhooks",
    handle: (context) => listPage(context, EMPTY_FORM, {}, null),
  },
  {
    method: "POST",
    pattern: "/webhooks",
    async handle(context) {
      const form = formOf(context.request.form);
      const created = await submitForm(context, () =>
        createWebhook(context.deps, context.actor, inputOf(form)),
      );
      if (created.isErr()) {
        return listPage(context, form, created.error.fields, null, 400);
      }
      return listPage(context, EMPTY_FORM, {}, created.value, 201);
    },
  },
  { method: "GET", pattern: "/webhooks/:id", handle: (context) => webhookPage(context) },
  {
    method: "POST",
    pattern: "/webhooks/:id",
    async handle(context) {
      const form = formOf(context.request.form);
      const updated = await submitForm(context, () =>
        updateWebhook(context.deps, context.actor, context.id, inputOf(form)),
      );
      if (updated.isErr()) {
        if (updated.error.error.type === "not_found") return context.notFound();
        return webhookPage(context, {
          form,
          errors: updated.error.fields,
          status: 400,
        });
      }
      return redirectTo(context.frame, `/webhooks/${context.id}`, "webhook_saved");
    },
  },
  {
    method: "POST",
    pattern: "/webhooks/:id/enable",
    async handle(context) {
      const updated = await updateWebhook(context.deps, context.actor, context.id, {
        status: "active",
      });
      if (updated.isErr()) {
        if (updated.error.type === "not_found") return context.notFound();
        return webhookPage(context, {
          errors: fieldErrorsOf(updated.error, () => ""),
          status: 409,
        });
      }
      return redirectTo(context.frame, `/webhooks/${context.id}`, "webhook_enabled");
    },
  },
  {
    method: "POST",
    pattern: "/webhooks/:id/rotate-secret",
    async handle(context) {
      const rotated = await rotateWebhookSecret(context.deps, context.actor, context.id);
      if (rotated.isErr()) return context.notFound();
      return webhookPage(context, { extras: { rotated: rotated.value.signing_secret } });
    },
  },
  {
    method: "POST",
    pattern: "/webhooks/:id/test",
    async handle(context) {
      const tested = await testWebhook(context.deps, context.actor, {
        webhook_id: context.id,
      });
      if (tested.isErr()) return context.notFound();
      return webhookPage(context, { extras: { test: tested.value } });
    },
  },
  changeRoute(
    "/webhooks/:id/delete",
    ({ deps, actor, id }) => deleteWebhook(deps, actor, id),
    () => "/webhooks",
    "webhook_deleted",
  ),
  ...deliveryRoutes,
];
