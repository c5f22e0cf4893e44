/** @jsxImportSource hono/jsx */
// The shelf page: search (the API's BM25 index), a tag filter and pages of 100 skills, each with its
// description, version, tags, trust badge, script marker and size; the generation, its publish
// time, and the advisories in force with the skills they block.
import { API_LIMITS } from "../../../core/api/contract.ts";
import { entryTitle, type FeedEntry } from "../../../core/changes/atom.ts";
import type { AdvisoryEntry } from "../../../core/trust/records.ts";
import type { ServedSkill, ShelfStatus } from "../../shelf/service.ts";
import { AuditBadge } from "./audit.tsx";
import { formatBytes, Layout, ScriptMarker, Timestamp, TrustBadges, type PageLinks } from "./layout.tsx";

/** Skills on one page of the listing. */
export const HOME_PAGE_SIZE = 100;

/** What the shelf page shows (home-data.ts builds it from the request's shelf). */
export interface HomeView {
  links: PageLinks;
  /** The path the search form submits to ("/" or "<ui>/"). */
  action: string;
  status: ShelfStatus;
  /** The listing's skills on this page, in order (ranked when searching, else by name). */
  skills: readonly ServedSkill[];
  /** How many skills match (before paging). */
  total: number;
  q: string;
  /** Why the query could not be used, if it could not. */
  queryProblem: string | null;
  tag: string;
  /** Every tag of the servable skills, with how many carry it. */
  tags: ReadonlyArray<readonly [string, number]>;
  page: number;
  pages: number;
  /** The newest history entries, newest first ("what's new"). */
  recent: readonly FeedEntry[];
}

function pageHref(view: HomeView, page: number): string {
  const params = new URLSearchParams();
  if (view.q) params.set("q", view.q);
  if (view.tag) params.set("tag", view.tag);
  if (page > 1) params.set("page", String(page));
  const query = params.toString();
  return query ? `${view.action}?${query}` : view.action;
}

function Advisories(props: { links: PageLinks; inForce: readonly AdvisoryEntry[]; blocked: ShelfStatus["blocked"] }) {
  if (props.inForce.length === 0) return null;
  return (
    <section class="notice bad" aria-labelledby="advisories">
      <h2 id="advisories">Advisories in force</h2>
      <ul>
        {props.inForce.map((a) => (
          <li>
            <strong>{a.advisory_id ?? "(unnamed advisory)"}</strong> ({a.severity}) on <code>{a.name}</code>: {a.hidden_issue}
          </li>
        ))}
      </ul>
      {props.blocked.length > 0 && (
        <p>
          Blocked, not served:{" "}
          {props.blocked.map((b, i) => (
            <>
              {i > 0 && ", "}
              <a href={`${props.links.ui}/skills/${b.name}`}>{b.name}</a>
            </>
          ))}
        </p>
      )}
    </section>
  );
}

function SkillItem(props: { links: PageLinks; skill: ServedSkill }) {
  const s = props.skill;
  return (
    <li>
      <h3>
        <a href={`${props.links.ui}/skills/${s.name}`}>{s.name}</a>
      </h3>
      <p>{s.description}</p>
      <div class="meta">
        {s.version !== null && <span>v{s.version}</span>}
        <TrustBadges level={s.trust.level} requiresReview={s.trust.requires_review} />
        <AuditBadge audit={s.audit} />
        {s.has_scripts && <ScriptMarker />}
        <span>
          {s.file_count} {s.file_count === 1 ? "file" : "files"}, {formatBytes(s.total_bytes)}
        </span>
      </div>
      {s.tags.length > 0 && (
        <ul class="tags" aria-label="Tags">
          {s.tags.map((t) => (
            <li>{t}</li>
          ))}
        </ul>
      )}
    </li>
  );
}

/** The shelf page. */
/** The newest history entries in a line each, with the feed that has them all. */
function WhatsNew(props: { links: PageLinks; recent: readonly FeedEntry[] }) {
  if (props.recent.length === 0) return null;
  return (
    <section aria-labelledby="whats-new">
      <h2 id="whats-new">What's new</h2>
      <ul>
        {props.recent.map((e) => (
          <li>
            <Timestamp at={e.at} />: {entryTitle(e)}
          </li>
        ))}
      </ul>
      <p>
        <a href={`${props.links.ui}/feed.xml`}>Follow the changes (Atom feed)</a>
      </p>
    </section>
  );
}

export function HomePage(view: HomeView) {
  const { status } = view;
  const first = (view.page - 1) * HOME_PAGE_SIZE + 1;
  const last = first + view.skills.length - 1;
  const filtered = view.q !== "" || view.tag !== "";
  return (
    <Layout title="skillshelf: skills on this shelf" links={view.links}>
      <h1>Skills on this shelf</h1>
      <p class="muted">
        {status.counts.served_skills} {status.counts.served_skills === 1 ? "skill" : "skills"} served, generation{" "}
        <code title={status.generation}>{status.generation.slice(0, 12)}</code>
        {status.published_at !== null ? (
          <>
            , published <Timestamp at={status.published_at} />
          </>
        ) : (
          " (pinned)"
        )}
        .
      </p>
      <Advisories links={view.links} inForce={status.advisories.in_force} blocked={status.blocked} />
      <WhatsNew links={view.links} recent={view.recent} />
      <search>
        <form class="search" method="get" action={view.action}>
          <div class="field">
            <label for="q">Search skills</label>
            <input id="q" type="search" name="q" value={view.q} placeholder="what should the agent do?" maxlength={API_LIMITS.maxQueryChars} />
          </div>
          <div class="field">
            <label for="tag">Tag</label>
            <select id="tag" name="tag">
              <option value="">All tags</option>
              {view.tags.map(([tag, count]) => (
                <option value={tag} selected={tag === view.tag}>
                  {tag} ({count})
                </option>
              ))}
            </select>
          </div>
          <button type="submit">Search</button>
          {filtered && <a href={view.action}>Clear</a>}
        </form>
      </search>
      {view.queryProblem !== null && (
        <p class="notice" role="alert">
          {view.queryProblem}
        </p>
      )}
      <h2 id="results">
        {view.total === 0 ? (filtered ? "No skills match" : "No skills yet") : `${filtered ? "Matching skills" : "Skills"}: ${first}–${last} of ${view.total}`}
      </h2>
      <ul class="skills" aria-labelledby="results">
        {view.skills.map((s) => (
          <SkillItem links={view.links} skill={s} />
        ))}
      </ul>
      {view.pages > 1 && (
        <nav class="pages" aria-label="Pages">
          {view.page > 1 && (
            <a href={pageHref(view, view.page - 1)} rel="prev">
              Previous page
            </a>
          )}
          <span>
            Page {view.page} of {view.pages}
          </span>
          {view.page < view.pages && (
            <a href={pageHref(view, view.page + 1)} rel="next">
              Next page
            </a>
          )}
        </nav>
      )}
    </Layout>
  );
}
