import {
  createWebhook,
  deleteWebhook,
  getWebhook,
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
  Badge,
  CheckboxGroup,
  CopyValue,
  CreatedSecrets,
  type FieldErrors,
  FormProblems,
  Layout,
  Notice,
  type PageFrame,
  PostForm,
  RecordTable,
  SelectField,
  shownUrl,
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
import { deliveryRoutes } from "./deliveries.js";

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

const statusBadge = (status: string) =>
  status === "active" ? <Badge tone="good">Active</Badge> : <Badge tone="bad">Inactive</Badge>;

function WebhookFields(props: { form: WebhookForm; errors: FieldErrors }) {
  const { form, errors } = props;
  return (
    <>
      <TextField
        name="url"
        label="URL"
        type="url"
        value={form.url}
        errors={errors}
        required
        hint="An https address that receives signed POSTs."
      />
      <CheckboxGroup
        name="topics"
        label="Topics"
        options={TOPICS}
        checked={form.topics}
        errors={errors}
      />
      <SelectField
        name="status"
        label="Status"
        value={form.status}
        options={STATUSES}
        errors={errors}
      />
      <TextArea
        name="description"
        label="Description"
        value={form.description}
        errors={errors}
        rows={2}
      />
    </>
  );
}

function WebhooksPage(props: {
  frame: PageFrame;
  webhooks: WebhookView[];
  form: WebhookForm;
  errors: FieldErrors;
  created: WebhookWithSecret | null;
  notice: string | null;
}) {
  const { frame, created } = props;
  return (
    <Layout frame={frame} section="webhooks" title="Webhooks">
      {props.notice && <Notice>{props.notice}</Notice>}
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
            <td>{statusBadge(webhook.status)}</td>
            <td class="wrap">{webhook.description ?? ""}</td>
            <td>
              <Time at={webhook.updated_at} />
            </td>
          </tr>
        ))}
      </RecordTable>
      <section class="card" aria-labelledby="create-heading">
        <h2 id="create-heading">New webhook</h2>
        <PostForm frame={frame} action={`${frame.base}/webhooks`} label="New webhook">
          <FormProblems errors={props.errors} />
          <WebhookFields form={props.form} errors={props.errors} />
          <button type="submit">Create webhook</button>
        </PostForm>
      </section>
    </Layout>
  );
}

interface WebhookExtras {
  rotated?: string | undefined;
  test?: WebhookTestResult | undefined;
}

function WebhookPage(props: {
  frame: PageFrame;
  webhook: WebhookView;
  form: WebhookForm;
  errors: FieldErrors;
  extras: WebhookExtras;
  notice: string | null;
}) {
  const { frame, webhook, extras } = props;
  const path = `${frame.base}/webhooks/${webhook.webhook_id}`;
  return (
    <Layout frame={frame} section="webhooks" title="Webhook">
      {props.notice && <Notice>{props.notice}</Notice>}
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
        <dt>Webhook ID</dt>
        <dd>
          <CopyValue value={webhook.webhook_id} label="Copy ID" />
        </dd>
        <dt>URL</dt>
        <dd class="wrap">{shownUrl(webhook.url)}</dd>
        <dt>Status</dt>
        <dd>{statusBadge(webhook.status)}</dd>
        <dt>Topics</dt>
        <dd>{webhook.topics.join(", ")}</dd>
        <dt>Created</dt>
        <dd>
          <Time at={webhook.created_at} />
        </dd>
      </dl>
      <div class="actions">
        {webhook.status === "inactive" && (
          <PostForm frame={frame} action={`${path}/enable`}>
            <button type="submit">Enable</button>
          </PostForm>
        )}
        <PostForm frame={frame} action={`${path}/test`}>
          <button type="submit" class="secondary">
            Send test
          </button>
        </PostForm>
        <PostForm
          frame={frame}
          action={`${path}/rotate-secret`}
          confirm="Rotate the signing secret? The current one stops working at once."
        >
          <button type="submit" class="secondary">
            Rotate secret
          </button>
        </PostForm>
        <PostForm
          frame={frame}
          action={`${path}/delete`}
          confirm="Delete this webhook? Its pending deliveries are cancelled."
        >
          <button type="submit" class="danger">
            Delete
          </button>
        </PostForm>
      </div>
      <section class="card" aria-labelledby="edit-heading">
        <h2 id="edit-heading">Edit</h2>
        <PostForm frame={frame} action={path} label="Edit webhook">
          <FormProblems errors={props.errors} />
          <WebhookFields form={props.form} errors={props.errors} />
          <button type="submit">Save</button>
        </PostForm>
      </section>
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
      notice={noticeOf(context.request)}
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
  const found = await getWebhook(context.deps, context.actor, context.params.id ?? "");
  if (found.isErr()) return context.notFound();
  const webhook = found.value;
  return renderPage(
    options.status ?? 200,
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
      notice={noticeOf(context.request)}
    />,
  );
}

const fieldOf = (path: string) => path;

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
      const created = await createWebhook(context.deps, context.actor, inputOf(form));
      if (created.isErr()) {
        return listPage(context, form, fieldErrorsOf(created.error, fieldOf), null, 400);
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
      const id = context.params.id ?? "";
      const updated = await updateWebhook(context.deps, context.actor, id, inputOf(form));
      if (updated.isErr()) {
        if (updated.error.type === "not_found") return context.notFound();
        return webhookPage(context, {
          form,
          errors: fieldErrorsOf(updated.error, fieldOf),
          status: 400,
        });
      }
      return redirectTo(context.frame, `/webhooks/${id}`, "webhook_saved");
    },
  },
  {
    method: "POST",
    pattern: "/webhooks/:id/enable",
    async handle(context) {
      const id = context.params.id ?? "";
      const updated = await updateWebhook(context.deps, context.actor, id, { status: "active" });
      if (updated.isErr()) {
        if (updated.error.type === "not_found") return context.notFound();
        return webhookPage(context, {
          errors: fieldErrorsOf(updated.error, () => ""),
          status: 409,
        });
      }
      return redirectTo(context.frame, `/webhooks/${id}`, "webhook_enabled");
    },
  },
  {
    method: "POST",
    pattern: "/webhooks/:id/rotate-secret",
    async handle(context) {
      const rotated = await rotateWebhookSecret(
        context.deps,
        context.actor,
        context.params.id ?? "",
      );
      if (rotated.isErr()) return context.notFound();
      return webhookPage(context, { extras: { rotated: rotated.value.signing_secret } });
    },
  },
  {
    method: "POST",
    pattern: "/webhooks/:id/test",
    async handle(context) {
      const tested = await testWebhook(context.deps, context.actor, {
        webhook_id: context.params.id ?? "",
      });
      if (tested.isErr()) return context.notFound();
      return webhookPage(context, { extras: { test: tested.value } });
    },
  },
  {
    method: "POST",
    pattern: "/webhooks/:id/delete",
    async handle(context) {
      const deleted = await deleteWebhook(context.deps, context.actor, context.params.id ?? "");
      if (deleted.isErr()) return context.notFound();
      return redirectTo(context.frame, "/webhooks", "webhook_deleted");
    },
  },
  ...deliveryRoutes,
];
