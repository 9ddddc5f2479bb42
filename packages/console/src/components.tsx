import { parseUrl } from "@tidings/core";
import type { ComponentChildren } from "preact";

/** Each field's problems by field name; `""` holds those that belong to no one field. */
export type FieldErrors = Record<string, string[]>;

/** What every signed-in page needs to render its frame and its forms. */
export interface PageFrame {
  /** Where the console is mounted, e.g. `/console` (no trailing slash; `""` at the root). */
  base: string;
  csrfToken: string;
  organization: { id: string; name: string };
  /** What a redirect asked this page to confirm (`?notice=`, one of the console's own). */
  notice: string | null;
  /** Whether webhooks may go to http and loopback addresses (the server's development mode). */
  devMode: boolean;
}

export type Section =
  | "overview"
  | "campaigns"
  | "messages"
  | "webhooks"
  | "keys"
  | "profiles"
  | "suppressions"
  | "settings";

const NAV: ReadonlyArray<{ section: Section; label: string; path: string }> = [
  { section: "overview", label: "Overview", path: "" },
  { section: "campaigns", label: "Campaigns", path: "/campaigns" },
  { section: "messages", label: "Messages", path: "/messages" },
  { section: "webhooks", label: "Webhooks", path: "/webhooks" },
  { section: "keys", label: "API keys", path: "/keys" },
  { section: "profiles", label: "Profiles", path: "/profiles" },
  { section: "suppressions", label: "Suppressions", path: "/suppressions" },
  { section: "settings", label: "Settings", path: "/settings" },
];

/** The document around every page: stylesheet and script from the package, no inline code. */
export function Document(props: { base: string; title: string; children: ComponentChildren }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>{`${props.title} · Tidings console`}</title>
        <link rel="icon" type="image/svg+xml" href={`${props.base}/assets/icon.svg`} />
        <link rel="stylesheet" href={`${props.base}/assets/console.css`} />
        <script src={`${props.base}/assets/console.js`} defer />
      </head>
      <body>{props.children}</body>
    </html>
  );
}

/** A signed-in page: the navigation, the organization, Sign out, and the page's content. */
export function Layout(props: {
  frame: PageFrame;
  /** The navigation item to mark current; `null` on a page of no section (not found). */
  section: Section | null;
  title: string;
  children: ComponentChildren;
}) {
  const { frame } = props;
  return (
    <Document base={frame.base} title={props.title}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <div class="brand">
          <span class="logo">Tidings</span>
          <span class="org" title={frame.organization.id}>
            {frame.organization.name}
          </span>
        </div>
        <nav aria-label="Console">
          <ul>
            {NAV.map((item) => (
              <li key={item.section}>
                <a
                  href={`${frame.base}${item.path}` || "/"}
                  aria-current={item.section === props.section ? "page" : undefined}
                >
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <form method="post" action={`${frame.base}/sign-out`} class="sign-out">
          <Csrf frame={frame} />
          <button type="submit" class="secondary">
            Sign out
          </button>
        </form>
      </header>
      <main id="main">
        <h1>{props.title}</h1>
        {frame.notice && <Notice>{frame.notice}</Notice>}
        {props.children}
      </main>
    </Document>
  );
}

/** The hidden CSRF field every state-changing form carries. */
function Csrf(props: { frame: PageFrame }) {
  return <input type="hidden" name="csrf_token" value={props.frame.csrfToken} />;
}

/** A POST form with its CSRF field; `confirm` asks before submitting (when script runs). */
export function PostForm(props: {
  frame: PageFrame;
  action: string;
  confirm?: string | undefined;
  class?: string | undefined;
  label?: string | undefined;
  children: ComponentChildren;
}) {
  return (
    <form
      method="post"
      action={props.action}
      class={props.class}
      data-confirm={props.confirm}
      aria-label={props.label}
      noValidate
    >
      <Csrf frame={props.frame} />
      {props.children}
    </form>
  );
}

/**
 * One button that posts to `action` (a console path, e.g. `/campaigns/cmp_…/activate`), in its
 * own form with the CSRF field; `confirm` asks first when the script runs, `name` gives it an
 * accessible name more precise than its text, `hidden` fields go with it.
 */
export function ActionButton(props: {
  frame: PageFrame;
  action: string;
  children: string;
  look?: "primary" | "secondary" | "danger" | undefined;
  small?: boolean | undefined;
  confirm?: string | undefined;
  name?: string | undefined;
  hidden?: Record<string, string> | undefined;
}) {
  const look = props.look === "primary" || props.look === undefined ? [] : [props.look];
  return (
    <PostForm
      frame={props.frame}
      action={`${props.frame.base}${props.action}`}
      confirm={props.confirm}
      class={props.small ? "inline" : undefined}
    >
      {Object.entries(props.hidden ?? {}).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <button
        type="submit"
        class={[...look, ...(props.small ? ["small"] : [])].join(" ") || undefined}
        aria-label={props.name}
      >
        {props.children}
      </button>
    </PostForm>
  );
}

/**
 * A form in a card: its heading, what to know first, the problems of a refused submission,
 * its fields, and the button that sends it.
 */
export function FormCard(props: {
  frame: PageFrame;
  heading: string;
  /** The form's accessible name, when the heading alone would be ambiguous (default: heading). */
  label?: string | undefined;
  intro?: string | undefined;
  /** The console path it posts to, e.g. `/campaigns`. */
  action: string;
  errors: FieldErrors;
  button: string;
  children: ComponentChildren;
}) {
  return (
    <section class="card" aria-labelledby="form-heading">
      <h2 id="form-heading">{props.heading}</h2>
      {props.intro && <p class="hint">{props.intro}</p>}
      <PostForm
        frame={props.frame}
        action={`${props.frame.base}${props.action}`}
        label={props.label ?? props.heading}
      >
        <FormProblems errors={props.errors} />
        {props.children}
        <button type="submit">{props.button}</button>
      </PostForm>
    </section>
  );
}

/** The Edit form of a record's page, which posts to the record's own path. */
export function EditCard(props: {
  frame: PageFrame;
  action: string;
  label: string;
  errors: FieldErrors;
  children: ComponentChildren;
}) {
  return (
    <FormCard
      frame={props.frame}
      heading="Edit"
      action={props.action}
      label={props.label}
      errors={props.errors}
      button="Save"
    >
      {props.children}
    </FormCard>
  );
}

/** A UTC time; the script shows it in the viewer's time zone, with UTC on hover. */
export function Time(props: { at: string | null | undefined }) {
  if (!props.at) return <span class="muted">—</span>;
  const utc = `${props.at.slice(0, 10)} ${props.at.slice(11, 19)} UTC`;
  return (
    <time datetime={props.at} title={utc}>
      {utc}
    </time>
  );
}

/** Problems that belong to no field, announced at the top of a refused form. */
export function FormProblems(props: { errors: FieldErrors | undefined }) {
  const general = props.errors?.[""] ?? [];
  const count = Object.values(props.errors ?? {}).reduce((n, list) => n + list.length, 0);
  if (count === 0) return null;
  return (
    <div class="problems" role="alert">
      <p>
        {count === 1 ? "One problem needs fixing" : `${count} problems need fixing`} before this can
        be saved.
      </p>
      {general.length > 0 && (
        <ul>
          {general.map((message) => (
            <li key={message}>{message}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

function FieldError(props: { id: string; messages: string[] | undefined }) {
  if (!props.messages || props.messages.length === 0) return null;
  return (
    <p class="field-error" id={props.id}>
      {props.messages.join(" ")}
    </p>
  );
}

/** The keys of a form whose values are text. */
type TextKeys<F> = { [K in keyof F]-?: F[K] extends string ? K : never }[keyof F] & string;

/**
 * Binds a form's values and problems to its fields by name, so that each field states only
 * what is its own: `const field = fieldsOf(form, errors)`, then
 * `<TextField {...field("name")} label="Name" />`.
 */
export const fieldsOf =
  <F extends object>(values: F, errors: FieldErrors) =>
  <K extends TextKeys<F>>(name: K): { name: K; value: F[K]; errors: FieldErrors } => ({
    name,
    value: values[name],
    errors,
  });

interface FieldProps {
  name: string;
  label: string;
  errors?: FieldErrors | undefined;
  hint?: string | undefined;
  required?: boolean | undefined;
  /** Distinguishes ids when one page has two forms with the same field name. */
  idPrefix?: string | undefined;
}

const fieldIds = (props: FieldProps) => {
  const id = `${props.idPrefix ?? ""}${props.name}`;
  const messages = props.errors?.[props.name];
  const describedBy = [
    props.hint ? `${id}-hint` : null,
    messages && messages.length > 0 ? `${id}-error` : null,
  ].filter(Boolean);
  return {
    id,
    messages,
    attrs: {
      id,
      name: props.name,
      "aria-invalid": messages && messages.length > 0 ? ("true" as const) : undefined,
      "aria-describedby": describedBy.length > 0 ? describedBy.join(" ") : undefined,
      required: props.required,
    },
  };
};

function Hint(props: { id: string; hint: string | undefined }) {
  return props.hint ? (
    <p class="hint" id={`${props.id}-hint`}>
      {props.hint}
    </p>
  ) : null;
}

/** A labelled text input with its hint and its problems beside it. */
export function TextField(
  props: FieldProps & {
    value: string | undefined;
    type?: "text" | "url" | "number" | "email" | "search";
  },
) {
  const { id, messages, attrs } = fieldIds(props);
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <Hint id={id} hint={props.hint} />
      <input type={(props.type ?? "text") as "text"} value={props.value ?? ""} {...attrs} />
      <FieldError id={`${id}-error`} messages={messages} />
    </div>
  );
}

/** A labelled multi-line text box. */
export function TextArea(props: FieldProps & { value: string | undefined; rows?: number }) {
  const { id, messages, attrs } = fieldIds(props);
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <Hint id={id} hint={props.hint} />
      <textarea rows={props.rows ?? 4} {...attrs}>
        {props.value ?? ""}
      </textarea>
      <FieldError id={`${id}-error`} messages={messages} />
    </div>
  );
}

/** A labelled select. */
export function SelectField(
  props: FieldProps & {
    value: string | undefined;
    options: ReadonlyArray<{ value: string; label: string }>;
    disabled?: boolean | undefined;
  },
) {
  const { id, messages, attrs } = fieldIds(props);
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <Hint id={id} hint={props.hint} />
      <select {...attrs} disabled={props.disabled}>
        {props.options.map((option) => (
          <option key={option.value} value={option.value} selected={option.value === props.value}>
            {option.label}
          </option>
        ))}
      </select>
      <FieldError id={`${id}-error`} messages={messages} />
    </div>
  );
}

/** A group of checkboxes, each labelled with its value (a scope, a topic). */
export function CheckboxGroup(
  props: FieldProps & { options: readonly string[]; checked: readonly string[] },
) {
  const id = `${props.idPrefix ?? ""}${props.name}`;
  const messages = props.errors?.[props.name];
  return (
    <fieldset
      class="field checkboxes"
      aria-describedby={messages && messages.length > 0 ? `${id}-error` : undefined}
    >
      <legend>{props.label}</legend>
      {props.options.map((option) => (
        <label key={option} class="check">
          <input
            type="checkbox"
            name={props.name}
            value={option}
            checked={props.checked.includes(option)}
          />
          {option}
        </label>
      ))}
      <FieldError id={`${id}-error`} messages={messages} />
    </fieldset>
  );
}

/** One checkbox with its label (a flag such as "SMS fallback"). */
export function CheckboxField(props: FieldProps & { checked: boolean }) {
  const { id, messages, attrs } = fieldIds(props);
  return (
    <div class="field">
      <label class="check" for={id}>
        <input type="checkbox" value="true" checked={props.checked} {...attrs} />
        {props.label}
      </label>
      <Hint id={id} hint={props.hint} />
      <FieldError id={`${id}-error`} messages={messages} />
    </div>
  );
}

/** A secret shown once, with a Copy button. */
function SecretOnce(props: { label: string; value: string; copyLabel: string }) {
  return (
    <div class="secret">
      <p class="secret-label">{props.label}</p>
      <code class="secret-value">{props.value}</code>
      <button type="button" class="secondary" data-copy={props.value} hidden>
        {props.copyLabel}
      </button>
    </div>
  );
}

/** A value with a Copy button (shown once the script runs; the value is selectable anyway). */
export function CopyValue(props: { value: string; label: string }) {
  return (
    <span class="copy-value">
      <code>{props.value}</code>{" "}
      <button type="button" class="secondary small" data-copy={props.value} hidden>
        {props.label}
      </button>
    </span>
  );
}

/** A word for a state, with a colour that repeats what the word says. */
export function Badge(props: { tone: "good" | "bad" | "neutral" | "warn"; children: string }) {
  return <span class={`badge badge-${props.tone}`}>{props.children}</span>;
}

/** A message shown after an action (saved, deleted…), announced to screen readers. */
export function Notice(props: { tone?: "good" | "bad"; children: ComponentChildren }) {
  return (
    <div class={`notice notice-${props.tone ?? "good"}`} role="status">
      {props.children}
    </div>
  );
}

/**
 * A receiver's URL as lists show it: without its query string, which often carries the
 * receiver's token (the edit form, for its owner, still has it whole).
 */
export function shownUrl(url: string): string {
  const parsed = parseUrl(url);
  if (parsed === null) return url;
  return `${parsed.origin}${parsed.pathname}${parsed.search ? "?…" : ""}`;
}

/** One fact on a record's page: its name, then its value (`wrap` for long text). */
export function Fact(props: {
  term: string;
  wrap?: boolean | undefined;
  children: ComponentChildren;
}) {
  return (
    <>
      <dt>{props.term}</dt>
      <dd class={props.wrap ? "wrap" : undefined}>{props.children}</dd>
    </>
  );
}

/**
 * A section with a heading, its controls (filters), and a table of records or a line saying
 * there are none, then what follows the table (a pager).
 */
export function RecordTable(props: {
  id: string;
  heading: string;
  empty: string;
  columns: readonly string[];
  count: number;
  controls?: ComponentChildren;
  after?: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <section aria-labelledby={`${props.id}-heading`}>
      <h2 id={`${props.id}-heading`}>{props.heading}</h2>
      {props.controls}
      {props.count === 0 ? (
        <p class="empty">{props.empty}</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                {props.columns.map((column) => (
                  <th scope="col" key={column}>
                    {column === "" ? <span class="visually-hidden">Actions</span> : column}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>{props.children}</tbody>
          </table>
        </div>
      )}
      {props.after}
    </section>
  );
}

/** What a create or rotate answer shows once: a heading, what to know, and the secrets. */
export function CreatedSecrets(props: {
  heading: string;
  children: ComponentChildren;
  secrets: ReadonlyArray<{ label: string; value: string; copyLabel: string }>;
}) {
  return (
    <section class="card created" aria-labelledby="created-heading">
      <h2 id="created-heading">{props.heading}</h2>
      <p>{props.children}</p>
      {props.secrets.map((secret) => (
        <SecretOnce
          key={secret.label}
          label={secret.label}
          value={secret.value}
          copyLabel={secret.copyLabel}
        />
      ))}
    </section>
  );
}
