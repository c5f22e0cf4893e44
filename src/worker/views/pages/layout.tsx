/** @jsxImportSource hono/jsx */
// The frame every page shares (head, header with the shelf's name and the sign-out form, footer)
// and the small pieces the shelf and skill pages both show: trust badges, sizes, dates.
import type { Child } from "hono/jsx";
import { PAGE_CSS, PAGE_SCRIPT } from "./assets.ts";

/** Where a page's links go: the pages' base path (behind the access prefix, and the pin when pinned). */
export interface PageLinks {
  /** e.g. "/ui", "/c/<token>/ui" or "/g/<generation>/ui". */
  ui: string;
  /** Shown when the caller signed in with the pages' cookie: the sign-out form posts here. */
  signOut: string | null;
}

/** The frame of every page. */
export function Layout(props: { title: string; links: PageLinks; children: Child; feed?: { href: string; title: string } }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <meta name="referrer" content="no-referrer" />
        <title>{props.title}</title>
        <link rel="alternate" type="application/atom+xml" title="What changed on this shelf" href={`${props.links.ui}/feed.xml`} />
        {props.feed && <link rel="alternate" type="application/atom+xml" title={props.feed.title} href={props.feed.href} />}
        <style dangerouslySetInnerHTML={{ __html: PAGE_CSS }} />
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="site">
          <a class="brand" href={`${props.links.ui}/`}>
            skillshelf
          </a>
          {props.links.signOut !== null && (
            <form method="post" action={props.links.signOut}>
              <button type="submit">Sign out</button>
            </form>
          )}
        </header>
        <main id="main">{props.children}</main>
        <footer class="site">
          Served by skillshelf. Agents read this shelf through <code>/.well-known/agent-skills/index.json</code>, <code>/mcp</code> and{" "}
          <code>/v1/openapi.json</code>.
        </footer>
        <p class="skip" id="copy-status" role="status" aria-live="polite"></p>
        <script dangerouslySetInnerHTML={{ __html: PAGE_SCRIPT }} />
      </body>
    </html>
  );
}

/** Levels the pages show as trusted (green); anything lower is amber. */
const TRUSTED_LEVELS = new Set(["first_party", "audited", "adopted"]);

/** The trust badge: the verdict's level, and "requires review" when the edge holds the skill for review. */
export function TrustBadges(props: { level: string; requiresReview: boolean }) {
  return (
    <>
      <span class={`badge ${TRUSTED_LEVELS.has(props.level) && !props.requiresReview ? "ok" : "warn"}`} title="Trust level">
        {props.level.replaceAll("_", " ")}
      </span>
      {props.requiresReview && (
        <span class="badge warn" title="A person must review this skill before an agent uses it">
          requires review
        </span>
      )}
    </>
  );
}

/** The marker of a skill that bundles scripts. */
export function ScriptMarker() {
  return (
    <span class="badge warn" title="This skill bundles scripts an agent may run">
      scripts
    </span>
  );
}

/**
 * A byte count for people.
 * @example formatBytes(1536) // => "1.5 KB"
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** A timestamp as a <time> element (UTC, to the minute). */
export function Timestamp(props: { at: string }) {
  return <time datetime={props.at}>{props.at.replace("T", " ").slice(0, 16)} UTC</time>;
}

/** Renders a page to an HTML document. */
export async function htmlDocument(page: Child): Promise<string> {
  // A JSX node renders through toString(), which is async when a component is.
  return `<!doctype html>${await (page as { toString(): string | Promise<string> }).toString()}`;
}
