import {
  type DomainError,
  getSettings,
  NUMBER_TYPES,
  RECOMMENDED_LIMITS,
  type SettingsView,
  updateSettings,
} from "@tidings/core";
import {
  CheckboxGroup,
  type FieldErrors,
  FormCard,
  fieldsOf,
  Layout,
  type PageFrame,
  PostForm,
  TextField,
  Time,
} from "../components.js";
import {
  fieldErrorsOf,
  type PageContext,
  type PageRoute,
  redirectTo,
  renderPage,
  submitForm,
} from "../context.js";

/** The settings as the form holds them: text, as typed. */
interface SettingsForm {
  allowed_countries: string;
  blocked_number_types: string[];
  destination_per_hour: string;
  destination_per_day: string;
  prefix_per_hour: string;
  country_daily_limits: string;
}

const limitText = (limit: number | null): string => (limit === null ? "" : String(limit));

const formOf = (settings: SettingsView): SettingsForm => ({
  allowed_countries: settings.allowed_countries?.join(", ") ?? "",
  blocked_number_types: settings.blocked_number_types,
  destination_per_hour: limitText(settings.destination_limits.per_hour),
  destination_per_day: limitText(settings.destination_limits.per_day),
  prefix_per_hour: limitText(settings.prefix_limits.per_hour),
  country_daily_limits: Object.entries(settings.country_daily_limits)
    .map(([country, limit]) => `${country}=${limit}`)
    .join(", "),
});

/** A limit as typed: empty is off; a whole number is one; anything else goes as typed, refused. */
const limitOf = (text: string): number | string | null => {
  const trimmed = text.trim();
  if (trimmed === "") return null;
  return /^[0-9]{1,10}$/.test(trimmed) ? Number(trimmed) : trimmed;
};

/** `GB=500, IE=100` (or `GB: 500`) as the API's object; a piece of another shape goes as typed. */
function dailyLimitsOf(text: string): Record<string, number | string> {
  const limits: Record<string, number | string> = {};
  for (const piece of text.split(/[,;\n]/)) {
    const trimmed = piece.trim();
    if (trimmed === "") continue;
    const pair = /^([A-Za-z]{2})\s*[=:]\s*(\S+)$/.exec(trimmed);
    if (pair === null) limits[trimmed] = trimmed;
    else limits[(pair[1] ?? "").toUpperCase()] = limitOf(pair[2] ?? "") ?? "";
  }
  return limits;
}

/** The PATCH body of a posted form: every setting, as the form says it. */
const bodyOf = (form: SettingsForm) => ({
  allowed_countries:
    form.allowed_countries.trim() === ""
      ? null
      : form.allowed_countries
          .split(/[\s,;]+/)
          .filter((code) => code !== "")
          .map((code) => code.toUpperCase()),
  blocked_number_types: form.blocked_number_types,
  destination_limits: {
    per_hour: limitOf(form.destination_per_hour),
    per_day: limitOf(form.destination_per_day),
  },
  prefix_limits: { per_hour: limitOf(form.prefix_per_hour) },
  country_daily_limits: dailyLimitsOf(form.country_daily_limits),
});

/** The form field each problem of the API's body belongs to. */
const FIELDS: Record<string, keyof SettingsForm> = {
  "destination_limits.per_hour": "destination_per_hour",
  "destination_limits.per_day": "destination_per_day",
  "prefix_limits.per_hour": "prefix_per_hour",
};

function formErrorsOf(error: DomainError): FieldErrors {
  if (error.type !== "validation" || error.issues.length === 0) return fieldErrorsOf(error);
  const errors: FieldErrors = {};
  for (const issue of error.issues) {
    const field = FIELDS[issue.path] ?? issue.path.split(/[.[]/)[0] ?? "";
    const message = `${issue.message[0]?.toUpperCase() ?? ""}${issue.message.slice(1)}`;
    errors[field] = [...(errors[field] ?? []), message];
  }
  return errors;
}

function SettingsPage(props: {
  frame: PageFrame;
  settings: SettingsView;
  form: SettingsForm;
  errors: FieldErrors;
}) {
  const { frame, settings } = props;
  const field = fieldsOf(props.form, props.errors);
  const recommended = RECOMMENDED_LIMITS;
  return (
    <Layout frame={frame} section="settings" title="Settings">
      <p>
        Abuse protection: where and how often this organization's messages may go. A send these
        settings refuse stores nothing and costs nothing. The limits are off until you set them.
        Last changed: <Time at={settings.updated_at} />
        {settings.updated_at === null && <span class="muted"> (the defaults)</span>}
      </p>
      <section class="card" aria-labelledby="recommended-heading">
        <h2 id="recommended-heading">Recommended limits</h2>
        <p class="hint">
          For an OTP endpoint: {recommended.destination_limits.per_hour} sends an hour and{" "}
          {recommended.destination_limits.per_day} a day per number,{" "}
          {recommended.prefix_limits.per_hour} an hour per number range. The other settings stay as
          they are.
        </p>
        <PostForm
          frame={frame}
          action={`${frame.base}/settings/recommended`}
          label="Apply the recommended limits"
        >
          <button type="submit">Apply recommended values</button>
        </PostForm>
      </section>
      <FormCard
        frame={frame}
        heading="Edit settings"
        action="/settings"
        errors={props.errors}
        button="Save settings"
      >
        <TextField
          {...field("allowed_countries")}
          label="Allowed countries"
          hint="ISO country codes, e.g. GB, IE (Guernsey GG, Jersey JE and the Isle of Man IM are their own). Empty: every country."
        />
        <CheckboxGroup
          name="blocked_number_types"
          label="Blocked number types"
          options={NUMBER_TYPES}
          checked={props.form.blocked_number_types}
          errors={props.errors}
        />
        <TextField
          {...field("destination_per_hour")}
          label="Sends per number per hour"
          hint="Empty: no limit."
        />
        <TextField
          {...field("destination_per_day")}
          label="Sends per number per day"
          hint="Empty: no limit."
        />
        <TextField
          {...field("prefix_per_hour")}
          label="Sends per number range per hour"
          hint="Numbers that share all but the last 3 digits. Empty: no limit."
        />
        <TextField
          {...field("country_daily_limits")}
          label="Sends per country per UTC day"
          hint="e.g. GB=500, IE=100. Empty: no limit."
        />
      </FormCard>
    </Layout>
  );
}

async function current(context: PageContext): Promise<SettingsView> {
  const settings = await getSettings(context.deps, context.actor);
  if (settings.isErr()) throw new Error("settings could not be read");
  return settings.value;
}

/**
 * Settings: the organization's abuse protection, as `GET`/`PATCH /v1/settings` have it; a
 * save sends every setting as the form shows it; "Apply recommended values" sets the
 * recommended per-number and per-range limits in one click.
 */
export const settingsRoutes: PageRoute[] = [
  {
    method: "GET",
    pattern: "/settings",
    async handle(context) {
      const settings = await current(context);
      return renderPage(
        200,
        <SettingsPage
          frame={context.frame}
          settings={settings}
          form={formOf(settings)}
          errors={{}}
        />,
      );
    },
  },
  {
    method: "POST",
    pattern: "/settings",
    async handle(context) {
      const { form: posted } = context.request;
      const form: SettingsForm = {
        allowed_countries: posted.get("allowed_countries") ?? "",
        blocked_number_types: posted.getAll("blocked_number_types"),
        destination_per_hour: posted.get("destination_per_hour") ?? "",
        destination_per_day: posted.get("destination_per_day") ?? "",
        prefix_per_hour: posted.get("prefix_per_hour") ?? "",
        country_daily_limits: posted.get("country_daily_limits") ?? "",
      };
      const saved = await submitForm(context, () =>
        updateSettings(context.deps, context.actor, bodyOf(form)),
      );
      if (saved.isErr()) {
        return renderPage(
          400,
          <SettingsPage
            frame={context.frame}
            settings={await current(context)}
            form={form}
            errors={formErrorsOf(saved.error.error)}
          />,
        );
      }
      return redirectTo(context.frame, "/settings", "settings_saved");
    },
  },
  {
    method: "POST",
    pattern: "/settings/recommended",
    async handle(context) {
      const saved = await updateSettings(context.deps, context.actor, RECOMMENDED_LIMITS);
      if (saved.isErr()) throw new Error("the recommended settings were refused");
      return redirectTo(context.frame, "/settings", "settings_recommended");
    },
  },
];
