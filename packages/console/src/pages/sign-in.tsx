import { Document } from "../components.js";

/** Why the sign-in page is shown. */
export type SignInState =
  | { kind: "ready"; token: string }
  | { kind: "invalid_link" }
  | { kind: "signed_out_visit" }
  | { kind: "signed_out" };

const HOW_TO_GET_A_LINK = "tidings console link --org ORG";

/** The page a sign-in link opens, and the one every signed-out visit gets. */
export function SignInPage(props: { base: string; state: SignInState }) {
  const { state } = props;
  return (
    <Document base={props.base} title="Sign in">
      <main id="main" class="sign-in">
        <h1>Tidings console</h1>
        {state.kind === "ready" && (
          <form method="post" action={`${props.base}/sign-in`}>
            <p>This link signs you in to your organization's console. It works once.</p>
            <input type="hidden" name="token" value={state.token} />
            <button type="submit">Sign in</button>
          </form>
        )}
        {state.kind === "invalid_link" && (
          <div class="problems" role="alert">
            <p>
              This sign-in link cannot be used: it was already used, it expired, or it is not a link
              Tidings made.
            </p>
            <p>
              Ask for a new one on the server: <code>{HOW_TO_GET_A_LINK}</code>
            </p>
          </div>
        )}
        {state.kind === "signed_out_visit" && (
          <p>
            You are not signed in, or your session ended. Sign in with a link made on the server:{" "}
            <code>{HOW_TO_GET_A_LINK}</code>
          </p>
        )}
        {state.kind === "signed_out" && (
          <p role="status">
            You have signed out. To come back, use a new link: <code>{HOW_TO_GET_A_LINK}</code>
          </p>
        )}
      </main>
    </Document>
  );
}
