/** @jsxImportSource hono/jsx */
// The pages that are not views of skills: the private shelf's sign-in form, and the answers for
// a page that is not there or a shelf that cannot be read right now.
import { Layout, type PageLinks } from "./layout.tsx";

/** The link to the team's OpenID Connect provider, when one is configured (the shelf's and the OAuth sign-in pages). */
export function ProviderSignIn(props: { provider: { name: string; href: string } | null }) {
  if (props.provider === null) return null;
  return (
    <p>
      <a href={props.provider.href} class="sign-in-provider">
        Sign in with {props.provider.name}
      </a>
    </p>
  );
}

/** The sign-in form of a private shelf; `problem` says why the last token was not accepted. */
export function SignInPage(props: { links: PageLinks; problem: string | null; oidc?: { name: string; href: string } | null }) {
  return (
    <Layout title="Sign in: skillshelf" links={props.links}>
      <h1>This shelf is private</h1>
      <ProviderSignIn provider={props.oidc ?? null} />
      <p>{props.oidc ? "Or enter" : "Enter"} a read token for this shelf. It is kept in a cookie that only this shelf's pages receive, until you sign out.</p>
      {props.problem !== null && (
        <p class="notice bad" role="alert">
          {props.problem}
        </p>
      )}
      <form method="post" action={`${props.links.ui}/sign-in`}>
        <p>
          <label for="token">Read token</label>
          <br />
          <input id="token" name="token" type="password" required autocomplete="off" spellcheck={false} maxlength={512} />
        </p>
        <button type="submit">Sign in</button>
      </form>
    </Layout>
  );
}

/** A short page for an answer that is not a view: a title and one paragraph. */
export function MessagePage(props: { links: PageLinks; title: string; message: string }) {
  return (
    <Layout title={`${props.title}: skillshelf`} links={props.links}>
      <h1>{props.title}</h1>
      <p>{props.message}</p>
      <p>
        <a href={`${props.links.ui}/`}>All skills</a>
      </p>
    </Layout>
  );
}
