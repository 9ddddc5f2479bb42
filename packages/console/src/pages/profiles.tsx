import {
  type ConsentChangeView,
  eraseProfile,
  exportProfile,
  getConsentHistory,
  getProfile,
  type InboundMessageView,
  listInbound,
  listProfiles,
  type PersonExport,
  type ProfileView,
} from "@tidings/core";
import {
  ActionButton,
  Badge,
  Fact,
  Layout,
  type PageFrame,
  RecordTable,
  Time,
} from "../components.js";
import { changeRoute, type PageContext, type PageRoute, renderPage } from "../context.js";
import { type ListPage, ListTable, readList, SearchBox } from "../lists.js";

const consent = (given: boolean) =>
  given ? <Badge tone="good">Yes</Badge> : <Badge tone="neutral">No</Badge>;

/** A channel's marketing consent, and beside it whether a suppression refuses sends anyway. */
function ConsentFact(props: {
  frame: PageFrame;
  given: boolean;
  suppressed: boolean;
  channel: "sms" | "viber";
  phoneNumber: string;
}) {
  if (!props.suppressed) return consent(props.given);
  const href = `${props.frame.base}/suppressions?channel=${props.channel}&phone_number=${encodeURIComponent(props.phoneNumber)}`;
  return (
    <>
      {consent(props.given)} <Badge tone="bad">Suppressed</Badge>{" "}
      <a href={href}>See the suppression</a>
    </>
  );
}

/** What made a consent change, in words. */
const SOURCES: Record<ConsentChangeView["source"], string> = {
  api: "API",
  import: "Import",
  console: "Console",
  inbound: "Inbound reply",
  provider: "Provider refusal",
};

/** How many of a profile's inbound messages its page shows. */
const INBOUND_SHOWN = 10;

const KEYWORD_CLASSES: Record<string, string> = {
  opt_out: "Opt-out",
  opt_in: "Opt-in",
  help: "Help",
};

function ProfilesPage(props: { frame: PageFrame; list: ListPage<ProfileView> }) {
  const { frame, list } = props;
  const q = list.filters.q ?? "";
  return (
    <Layout frame={frame} section="profiles" title="Profiles">
      <ListTable
        frame={frame}
        path="/profiles"
        list={list}
        heading={q ? "Matching profiles" : "All profiles"}
        empty={q ? "No profile matches." : "No profiles yet."}
        columns={["Phone number", "Name", "Email", "Viber consent", "SMS consent", "Created"]}
        filterLabel="Find profiles"
        filterButton="Search"
        filters={
          <SearchBox
            value={q}
            errors={list.errors}
            hint="A phone number in international form (+…) or an email address."
          />
        }
      >
        {list.rows.map((profile) => (
          <tr key={profile.public_id}>
            <td>
              <a href={`${frame.base}/profiles/${profile.public_id}`}>{profile.phone_number}</a>
            </td>
            <td class="wrap">{profile.full_name ?? "—"}</td>
            <td class="wrap">{profile.email ?? "—"}</td>
            <td>{consent(profile.viber_marketing_consent)}</td>
            <td>{consent(profile.sms_marketing_consent)}</td>
            <td>
              <Time at={profile.created_at} />
            </td>
          </tr>
        ))}
      </ListTable>
    </Layout>
  );
}

function ProfilePage(props: {
  frame: PageFrame;
  profile: ProfileView & { suppressed: { viber: boolean; sms: boolean } };
  history: ConsentChangeView[];
  inbound: { rows: InboundMessageView[]; more: boolean };
}) {
  const { profile, frame } = props;
  const attributes = Object.entries(profile.attributes);
  return (
    <Layout frame={props.frame} section="profiles" title={`Profile ${profile.phone_number}`}>
      <dl class="facts">
        <Fact term="Profile ID">
          <code>{profile.public_id}</code>
        </Fact>
        <Fact term="Name" wrap>
          {profile.full_name ?? "—"}
        </Fact>
        <Fact term="Email" wrap>
          {profile.email ?? "—"}
        </Fact>
        <Fact term="Viber marketing consent">
          <ConsentFact
            frame={frame}
            given={profile.viber_marketing_consent}
            suppressed={profile.suppressed.viber}
            channel="viber"
            phoneNumber={profile.phone_number}
          />
        </Fact>
        <Fact term="SMS marketing consent">
          <ConsentFact
            frame={frame}
            given={profile.sms_marketing_consent}
            suppressed={profile.suppressed.sms}
            channel="sms"
            phoneNumber={profile.phone_number}
          />
        </Fact>
        <Fact term="Time zone" wrap>
          {profile.time_zone ?? "Not set: the zones of the number's prefix decide sending windows"}
        </Fact>
        <Fact term="Source">{profile.source}</Fact>
        <Fact term="Created">
          <Time at={profile.created_at} />
        </Fact>
      </dl>
      {attributes.length > 0 && (
        <section aria-labelledby="attributes-heading">
          <h2 id="attributes-heading">Attributes</h2>
          <dl class="facts">
            {attributes.map(([name, value]) => (
              <>
                <dt class="wrap">{name}</dt>
                <dd class="wrap">{String(value)}</dd>
              </>
            ))}
          </dl>
        </section>
      )}
      <RecordTable
        id="history"
        heading="Consent history"
        empty="No consent changes recorded."
        columns={["When", "Channel", "From", "To", "Source", "API key", "Note"]}
        count={props.history.length}
      >
        {props.history.map((change, index) => (
          <tr key={`${change.changed_at}-${change.channel}-${index}`}>
            <td>
              <Time at={change.changed_at} />
            </td>
            <td>{change.channel}</td>
            <td>{change.old_value === null ? "(created)" : change.old_value ? "Yes" : "No"}</td>
            <td>{change.new_value ? "Yes" : "No"}</td>
            <td>{SOURCES[change.source]}</td>
            <td>{change.api_key_id ? <code>{change.api_key_id}</code> : "—"}</td>
            <td class="wrap">{change.note ?? "—"}</td>
          </tr>
        ))}
      </RecordTable>
      <RecordTable
        id="inbound"
        heading="Inbound messages"
        empty="No messages received from this number."
        columns={["Received", "Channel", "Text", "Keyword", "To", "Provider"]}
        count={props.inbound.rows.length}
        after={
          props.inbound.more && (
            <p>
              The newest {INBOUND_SHOWN} are shown; the API's{" "}
              <code>GET /v1/inbound?phone_number=</code> lists them all.
            </p>
          )
        }
      >
        {props.inbound.rows.map((message) => (
          <tr key={message.inbound_id}>
            <td>
              <Time at={message.received_at} />
            </td>
            <td>{message.channel}</td>
            <td class="wrap">{message.text}</td>
            <td>{message.keyword_class === null ? "—" : KEYWORD_CLASSES[message.keyword_class]}</td>
            <td>{message.to}</td>
            <td>{message.provider}</td>
          </tr>
        ))}
      </RecordTable>
      <section aria-labelledby="erase-heading">
        <h2 id="erase-heading">Erase this person</h2>
        <p>
          For a request to be forgotten: removes what identifies them, for good. The next page says
          exactly what goes and what stays.
        </p>
        <p>
          <a href={`${props.frame.base}/profiles/${profile.public_id}/erase`}>
            Review the erasure of {profile.phone_number}
          </a>
        </p>
      </section>
    </Layout>
  );
}

/** The confirm step of an erasure: what goes and what stays, before anything is done. */
function ErasePage(props: { frame: PageFrame; person: PersonExport }) {
  const { frame, person } = props;
  const profile = person.profile;
  if (profile === null) return null;
  const messages = person.messages.length;
  const links = person.messages.reduce((n, m) => n + m.links.length, 0);
  const attributes = Object.keys(profile.attributes).length;
  const id = profile.public_id;
  return (
    <Layout frame={frame} section="profiles" title={`Erase ${profile.phone_number ?? id}?`}>
      <p>This cannot be undone. Erasing the profile {id} removes:</p>
      <ul>
        <li>its phone number {profile.phone_number}</li>
        <li>its e-mail address {profile.email ?? "(none)"}</li>
        <li>its name {profile.full_name ?? "(none)"}</li>
        <li>
          {attributes} attribute{attributes === 1 ? "" : "s"}
        </li>
        <li>
          the recipient number and text of {messages} message{messages === 1 ? "" : "s"}, the URLs
          of their {links} tracked link{links === 1 ? "" : "s"}, and the bodies of their webhook
          deliveries
        </li>
        <li>
          the number and text of {person.inbound.length} message
          {person.inbound.length === 1 ? "" : "s"} the person sent, and the notes of their{" "}
          {person.suppressions.length} suppression{person.suppressions.length === 1 ? "" : "s"}
        </li>
      </ul>
      <p>
        It keeps the profile's id, its messages' ids, statuses and times, and its consent history (
        {person.consent_history.length} change{person.consent_history.length === 1 ? "" : "s"}), the
        record that past sends were lawful, and the suppressions themselves (kept under a keyed hash
        of the number), so a person who opted out stays opted out. Backups taken before still hold
        the person.
      </p>
      <ActionButton
        frame={frame}
        action={`/profiles/${id}/erase`}
        look="danger"
        name={`Erase ${profile.phone_number ?? id} for good`}
      >
        Erase for good
      </ActionButton>
      <p>
        <a href={`${frame.base}/profiles/${id}`}>Keep the profile</a>
      </p>
    </Layout>
  );
}

/** `?q=` as the filter the profile list takes: a phone number, or an email. */
const filterOf = (q: string): Record<string, string> =>
  q === "" ? {} : q.includes("@") ? { email: q } : { phone_number: q };

/** Whatever was searched for is the Search box's problem. */
const fieldOf = (path: string) => (path === "email" || path === "phone_number" ? "q" : path);

async function profilesPage(context: PageContext) {
  const list = await readList(
    context,
    "/profiles",
    ["q"],
    ({ q, ...page }) =>
      listProfiles(context.deps, context.actor, { ...filterOf(q ?? ""), ...page }),
    fieldOf,
  );
  return renderPage(list.read ? 200 : 400, <ProfilesPage frame={context.frame} list={list} />);
}

/**
 * Profiles: find by phone or email (pages of 25); a profile's consent flags with its
 * suppressions, its consent history with sources, and its newest inbound messages.
 */
export const profileRoutes: PageRoute[] = [
  { method: "GET", pattern: "/profiles", handle: profilesPage },
  {
    method: "GET",
    pattern: "/profiles/:id",
    async handle(context) {
      const profile = await getProfile(context.deps, context.actor, context.id);
      const history = await getConsentHistory(context.deps, context.actor, context.id);
      if (profile.isErr() || history.isErr()) return context.notFound();
      const inbound = await listInbound(context.deps, context.actor, {
        phone_number: profile.value.phone_number,
        limit: String(INBOUND_SHOWN),
      });
      if (inbound.isErr()) throw new Error(inbound.error.message);
      return renderPage(
        200,
        <ProfilePage
          frame={context.frame}
          profile={profile.value}
          history={history.value}
          inbound={{ rows: inbound.value.data, more: inbound.value.meta.has_more }}
        />,
      );
    },
  },
  {
    method: "GET",
    pattern: "/profiles/:id/erase",
    async handle(context) {
      // Only a profile the console shows (an active one) is offered for erasure here.
      const profile = await getProfile(context.deps, context.actor, context.id);
      const person = await exportProfile(context.deps, context.actor, context.id);
      if (profile.isErr() || person.isErr()) return context.notFound();
      return renderPage(200, <ErasePage frame={context.frame} person={person.value} />);
    },
  },
  changeRoute(
    "/profiles/:id/erase",
    (context) => eraseProfile(context.deps, context.actor, context.id),
    () => "/profiles",
    "profile_erased",
  ),
];
