/** @jsxImportSource hono/jsx */
// The authorization pages a person sees when a hosted agent asks to read the shelf: sign in (with
// the team's identity provider where it is set up, or the shelf's read token), then consent
// naming the client, where its tokens go, the shelf and the scope. Built on the pages' layout, so
// they get the pages' CSP, styles and accessibility; everything a client chose is escaped by JSX.
import type { ConsentDescription } from "@cloudflare/workers-oauth-provider";
import { Layout, type PageLinks } from "../views/pages/layout.tsx";
import { ProviderSignIn } from "../views/pages/messages.tsx";

const LINKS: PageLinks = { ui: "/ui", signOut: null };

/** What each scope lets a client do, in words (an unknown scope is shown as its name). */
const SCOPE_WORDS: Readonly<Record<string, string>> = {
  "skills:read": "Read this shelf's skills and their files (the skill files, the API and MCP). It cannot publish or change anything.",
  offline_access: "Stay signed in: refresh its access without asking you again, until the grant is revoked or expires.",
};

/** The client as the page names it: who it says it is, and whether that is verified. */
function ClientFacts(props: { details: ConsentDescription; shelf: string }) {
  const d = props.details;
  return (
    <>
      <p>
        <strong>{d.clientName}</strong> asks to read the skill shelf at <strong>{props.shelf}</strong>.
      </p>
      <p>
        {d.clientDomain ? (
          <>
            The app is published by <strong>{d.clientDomain}</strong>.
          </>
        ) : (
          "The app registered itself; its name is not verified."
        )}{" "}
        Access will be sent to <strong>{d.redirectHost}</strong>.
      </p>
      {d.redirectIsLoopback && (
        <p class="notice warn" role="note">
          This sends access to an app on your computer. Continue only if you just started connecting from it.
        </p>
      )}
    </>
  );
}

/**
 * Step 1: sign in with the team's identity provider (`oidc`, where it is set up) or a read token.
 * `problem` says why the last attempt failed.
 */
export function SignInStep(props: {
  details: ConsentDescription;
  shelf: string;
  action: string;
  handle: string;
  problem: string | null;
  oidc?: { name: string; href: string } | null;
}) {
  return (
    <Layout title="Sign in to connect an app: skillshelf" links={LINKS}>
      <h1>Connect an app to this shelf</h1>
      <ClientFacts details={props.details} shelf={props.shelf} />
      {props.problem !== null && (
        <p class="notice bad" role="alert">
          {props.problem}
        </p>
      )}
      <ProviderSignIn provider={props.oidc ?? null} />
      <form method="post" action={props.action}>
        <input type="hidden" name="handle" value={props.handle} />
        <input type="hidden" name="step" value="sign-in" />
        <p>
          <label for="token">{props.oidc ? "Or a read token for this shelf" : "Read token for this shelf"}</label>
          <br />
          <input id="token" name="token" type="password" required autocomplete="off" spellcheck={false} maxlength={512} />
        </p>
        <p>The token is checked once and never given to the app; the app gets its own access, which the shelf's owner can revoke.</p>
        <button type="submit">Continue</button>
      </form>
    </Layout>
  );
}

/** Step 2: what the app will be able to do, and Allow or Deny. */
export function ConsentStep(props: { details: ConsentDescription; shelf: string; action: string; handle: string; signIn: string; scope: readonly string[] }) {
  return (
    <Layout title={`Allow ${props.details.clientName}? skillshelf`} links={LINKS}>
      <h1>Allow this app to read the shelf?</h1>
      <ClientFacts details={props.details} shelf={props.shelf} />
      <h2>It will be able to</h2>
      <ul>
        {props.scope.map((scope) => (
          <li>
            <code>{scope}</code>: {SCOPE_WORDS[scope] ?? scope}
          </li>
        ))}
      </ul>
      <form method="post" action={props.action}>
        <input type="hidden" name="handle" value={props.handle} />
        <input type="hidden" name="step" value="consent" />
        <input type="hidden" name="sign_in" value={props.signIn} />
        <p>
          <button type="submit" name="decision" value="approve">
            Allow
          </button>{" "}
          <button type="submit" name="decision" value="deny">
            Deny
          </button>
        </p>
      </form>
    </Layout>
  );
}

/** An authorization that cannot go on: a title and what to do about it (never redirected to an unverified client). */
export function AuthorizeProblem(props: { title: string; message: string }) {
  return (
    <Layout title={`${props.title}: skillshelf`} links={LINKS}>
      <h1>{props.title}</h1>
      <p>{props.message}</p>
    </Layout>
  );
}
