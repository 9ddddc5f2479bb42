import {
  type ApiKeyView,
  type CreatedApiKey,
  createApiKey,
  listApiKeys,
  notFound,
  revokeApiKey,
  SCOPES,
} from "@tidings/core";
import { err } from "neverthrow";
import {
  ActionButton,
  Badge,
  CheckboxGroup,
  CreatedSecrets,
  type FieldErrors,
  FormCard,
  fieldsOf,
  Layout,
  type PageFrame,
  RecordTable,
  TextField,
  Time,
} from "../components.js";
import {
  changeRoute,
  type PageContext,
  type PageRoute,
  renderPage,
  submitForm,
} from "../context.js";

interface KeyForm {
  name: string;
  scopes: string[];
  expires_at: string;
}

const EMPTY_FORM: KeyForm = { name: "", scopes: [], expires_at: "" };

function stateOf(key: ApiKeyView, now: number) {
  if (key.revoked_at) return <Badge tone="bad">Revoked</Badge>;
  if (key.expires_at && Date.parse(key.expires_at) <= now) return <Badge tone="bad">Expired</Badge>;
  return <Badge tone="good">Active</Badge>;
}

function KeysPage(props: {
  frame: PageFrame;
  keys: ApiKeyView[];
  now: number;
  form: KeyForm;
  errors: FieldErrors;
  created: CreatedApiKey | null;
}) {
  const { frame, created } = props;
  const field = fieldsOf(props.form, props.errors);
  return (
    <Layout frame={frame} section="keys" title="API keys">
      {created && (
        <CreatedSecrets
          heading={`Key ${created.name ?? created.key_id} created`}
          secrets={[
            {
              label: "Token (Authorization: Bearer …)",
              value: created.token,
              copyLabel: "Copy token",
            },
            {
              label: "Webhook signing secret",
              value: created.webhook_signing_secret,
              copyLabel: "Copy signing secret",
            },
          ]}
        >
          <strong>These secrets are shown only now.</strong> Keep them somewhere safe: Tidings
          stores only a hash of the token.
        </CreatedSecrets>
      )}
      <RecordTable
        id="list"
        heading="Keys"
        empty="No API keys yet."
        columns={["Name", "Key ID", "Scopes", "State", "Created", "Expires", ""]}
        count={props.keys.length}
      >
        {props.keys.map((key) => (
          <tr key={key.key_id}>
            <td class="wrap">{key.name ?? <span class="muted">(no name)</span>}</td>
            <td>
              <code>{key.key_id}</code>
            </td>
            <td>{key.scopes.join(", ")}</td>
            <td>{stateOf(key, props.now)}</td>
            <td>
              <Time at={key.created_at} />
            </td>
            <td>
              <Time at={key.expires_at} />
            </td>
            <td>
              {key.revoked_at === null && (
                <ActionButton
                  frame={frame}
                  action={`/keys/${key.key_id}/revoke`}
                  look="danger"
                  small
                  name={`Revoke ${key.name ?? key.key_id}`}
                  confirm={`Revoke the key ${key.name ?? key.key_id}? Requests made with it will be refused at once.`}
                >
                  Revoke
                </ActionButton>
              )}
            </td>
          </tr>
        ))}
      </RecordTable>
      <FormCard
        frame={frame}
        heading="New key"
        action="/keys"
        errors={props.errors}
        button="Create key"
      >
        <TextField
          {...field("name")}
          label="Name"
          hint="Optional: what uses the key, e.g. Checkout service."
        />
        <CheckboxGroup
          name="scopes"
          label="Scopes"
          options={SCOPES}
          checked={props.form.scopes}
          errors={props.errors}
        />
        <TextField
          {...field("expires_at")}
          label="Expires at"
          hint="Optional: an ISO 8601 time such as 2027-01-31T00:00:00Z. Empty: never."
        />
      </FormCard>
    </Layout>
  );
}

async function keysPage(
  context: PageContext,
  form: KeyForm,
  errors: FieldErrors,
  created: CreatedApiKey | null,
  status = 200,
) {
  const listed = await listApiKeys(context.deps, context.actor.organizationId);
  if (listed.isErr()) throw new Error(listed.error.message);
  return renderPage(
    status,
    <KeysPage
      frame={context.frame}
      keys={[...listed.value].reverse()}
      now={context.deps.clock.now()}
      form={form}
      errors={errors}
      created={created}
    />,
  );
}

/** API keys: list (newest first, revoked ones shown as such), create with scopes, revoke. */
export const keyRoutes: PageRoute[] = [
  { method: "GET", pattern: "/keys", handle: (context) => keysPage(context, EMPTY_FORM, {}, null) },
  {
    method: "POST",
    pattern: "/keys",
    async handle(context) {
      const { form: posted } = context.request;
      const form: KeyForm = {
        name: posted.get("name") ?? "",
        scopes: posted.getAll("scopes"),
        expires_at: posted.get("expires_at") ?? "",
      };
      const created = await submitForm(context, () =>
        createApiKey(context.deps, {
          organization_id: context.actor.organizationId,
          name: form.name.trim() === "" ? null : form.name,
          scopes: form.scopes,
          expires_at: form.expires_at.trim() === "" ? null : form.expires_at.trim(),
        }),
      );
      if (created.isErr()) {
        return keysPage(context, form, created.error.fields, null, 400);
      }
      // Shown in this answer only: a redirect would have to carry the secret somewhere.
      return keysPage(context, EMPTY_FORM, {}, created.value, 201);
    },
  },
  changeRoute(
    "/keys/:id/revoke",
    async ({ deps, actor, id }) => {
      // Keys are revoked by id alone: only one of this organization's is.
      const keys = await listApiKeys(deps, actor.organizationId);
      if (keys.isErr()) return err(keys.error);
      if (!keys.value.some((key) => key.key_id === id)) {
        return err(notFound("api key", id, "api_key_not_found"));
      }
      return revokeApiKey(deps, id);
    },
    () => "/keys",
    "key_revoked",
  ),
];
