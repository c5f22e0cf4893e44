/** @jsxImportSource hono/jsx */
// A skill's page: its rendered instructions with the outline as a table of contents (tokens per
// section), when to use it and when not, its files (sizes, media types, digests; view, download,
// images shown), the trust verdict with its reasons, the audit's findings, any advisory, and install snippets for each
// client. A blocked skill's page says why and offers nothing to install.
import type { LifecycleStatus } from "../../../core/changes/lifecycle.ts";
import type { SkillTrustView } from "../../../core/api/trust.ts";
import type { SkillRecord } from "../../../core/generation/manifest.ts";
import type { ServedSkill } from "../../shelf/service.ts";
import type { BlockingAdvisory } from "../../shelf/verdict.ts";
import { formatBytes, Layout, ScriptMarker, TrustBadges, type PageLinks } from "./layout.tsx";
import { AuditBadge, AuditPanel } from "./audit.tsx";
import { installSnippets, type InstallSnippet, type InstallTargets } from "./install.ts";
import { PAGE_MAX_SECTIONS, sectionAnchor } from "./markdown.ts";

/** The most characters of a section title the table of contents shows. */
const TOC_TITLE_MAX_CHARS = 200;

/** What a skill's page shows. */
export interface SkillView {
  links: PageLinks;
  skill: ServedSkill;
  record: SkillRecord;
  trust: SkillTrustView;
  bodyHtml: string;
  /** Outline keys that have an anchor in the body. */
  anchored: ReadonlySet<string>;
  /** True when the page shows only part of the body (the rest is read from SKILL.md itself). */
  bodyTruncated: boolean;
  install: InstallTargets;
  fileUrl(path: string): string;
  /** What lifecycle.yaml says of the skill: a deprecation banner when `deprecated` is set. */
  lifecycle?: LifecycleStatus;
}

// The images the file view serves as images (SVG is active content: served as text, so never inlined).
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

function Snippet(props: InstallSnippet) {
  if (props.note) {
    return (
      <div class="snippet">
        <h3 id={`${props.id}-title`}>{props.title}</h3>
        <p class="muted" id={props.id}>
          {props.text}
        </p>
      </div>
    );
  }
  return (
    <div class="snippet">
      <h3 id={`${props.id}-title`}>{props.title}</h3>
      <button type="button" class="copy" data-copy={props.id} hidden aria-describedby={`${props.id}-title`}>
        Copy
      </button>
      <pre id={props.id} tabindex={0}>
        {props.text}
      </pre>
    </div>
  );
}

function Outline(props: { view: SkillView }) {
  const outline = props.view.record.outline;
  // Bounded like the body: a SKILL.md of 40,000 headings lists its first PAGE_MAX_SECTIONS.
  const listed = outline.sections.slice(0, PAGE_MAX_SECTIONS);
  const more = outline.sections.length - listed.length;
  return (
    <nav aria-labelledby="toc">
      <h2 id="toc">Contents</h2>
      <p class="muted">About {outline.total_tokens} tokens in all.</p>
      <ol>
        {listed.map((s) => {
          const title = s.title.length > TOC_TITLE_MAX_CHARS ? `${s.title.slice(0, TOC_TITLE_MAX_CHARS)}…` : s.title;
          return (
            <li class={`toc-${s.level}`}>
              {props.view.anchored.has(s.key) ? <a href={`#${sectionAnchor(s.key)}`}>{title}</a> : <span>{title}</span>}{" "}
              <span class="muted">({s.tokens} tokens)</span>
            </li>
          );
        })}
      </ol>
      {more > 0 && (
        <p class="muted">
          {more} more sections: <a href={props.view.fileUrl("SKILL.md")}>read SKILL.md</a>.
        </p>
      )}
    </nav>
  );
}

function Files(props: { view: SkillView }) {
  const { record } = props.view;
  const images = record.files.filter((f) => IMAGE_TYPES.has(f.media_type));
  return (
    <section aria-labelledby="files">
      <h2 id="files">Files</h2>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Path</th>
              <th scope="col">Size</th>
              <th scope="col">Media type</th>
              <th scope="col">SHA-256</th>
              <th scope="col">Download</th>
            </tr>
          </thead>
          <tbody>
            {record.files.map((f) => (
              <tr>
                <td>
                  <a href={props.view.fileUrl(f.path)}>{f.path}</a>
                </td>
                <td>{formatBytes(f.size)}</td>
                <td>{f.media_type}</td>
                <td class="digest">
                  <code>{f.sha256}</code>
                </td>
                <td>
                  <a href={`${props.view.fileUrl(f.path)}?download=1`} aria-label={`Download ${f.path}`}>
                    Download
                  </a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {images.map((f) => (
        <figure>
          <img src={props.view.fileUrl(f.path)} alt={`${f.path} from this skill`} loading="lazy" />
          <figcaption>{f.path}</figcaption>
        </figure>
      ))}
    </section>
  );
}

function Trust(props: { view: SkillView }) {
  const { verdict, source } = props.view.trust;
  return (
    <section aria-labelledby="trust">
      <h2 id="trust">Trust</h2>
      <dl class="facts">
        <dt>Level</dt>
        <dd>
          <TrustBadges level={verdict.level} requiresReview={verdict.requires_review} />
        </dd>
        <dt>Source</dt>
        <dd>{source ?? "none recorded"}</dd>
        <dt>May attach</dt>
        <dd>{verdict.attachable ? "yes" : "no: a person must review it first"}</dd>
        {verdict.validation !== null && (
          <>
            <dt>Validated</dt>
            <dd>
              {verdict.validation.method} by {verdict.validation.validated_by} on {verdict.validation.validated_at}
            </dd>
          </>
        )}
      </dl>
      {verdict.reasons.length > 0 && (
        <>
          <h3>Reasons</h3>
          <ul>
            {verdict.reasons.map((r) => (
              <li>{r}</li>
            ))}
          </ul>
        </>
      )}
      {verdict.warnings.length > 0 && (
        <>
          <h3>Warnings</h3>
          <ul>
            {verdict.warnings.map((w) => (
              <li>{w}</li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/** Where an imported skill came from (provenance.yaml, as the build published it). */
function Provenance(props: { provenance: NonNullable<SkillRecord["provenance"]> }) {
  const p = props.provenance;
  return (
    <section aria-labelledby="provenance">
      <h2 id="provenance">Provenance</h2>
      <dl class="facts">
        <dt>Imported from</dt>
        <dd>
          {p.source} ({p.kind}
          {p.path !== null ? `, ${p.path}` : ""})
        </dd>
        {p.ref !== null && (
          <>
            <dt>Ref</dt>
            <dd>{p.ref}</dd>
          </>
        )}
        {p.commit !== null && (
          <>
            <dt>Commit</dt>
            <dd>
              <code>{p.commit}</code>
            </dd>
          </>
        )}
        {p.digest !== null && (
          <>
            <dt>Digest</dt>
            <dd>
              <code>{p.digest}</code>
            </dd>
          </>
        )}
        {p.version !== null && (
          <>
            <dt>Upstream version</dt>
            <dd>{p.version}</dd>
          </>
        )}
        <dt>Imported at</dt>
        <dd>{p.imported_at}</dd>
        <dt>Changed since</dt>
        <dd>{p.modified ? "yes: the team edited it after importing" : "no: the files are as imported"}</dd>
      </dl>
    </section>
  );
}

function UseList(props: { id: string; title: string; items: readonly string[] }) {
  if (props.items.length === 0) return null;
  return (
    <section aria-labelledby={props.id}>
      <h2 id={props.id}>{props.title}</h2>
      <ul>
        {props.items.map((item) => (
          <li>{item}</li>
        ))}
      </ul>
    </section>
  );
}

/** A served skill's page. */
export function SkillPage(view: SkillView) {
  const { skill, record, trust } = view;
  return (
    <Layout
      title={`${skill.name}: skillshelf`}
      links={view.links}
      feed={{ href: `${view.links.ui}/skills/${skill.name}/feed.xml`, title: `What changed in ${skill.name}` }}
    >
      <p>
        <a href={`${view.links.ui}/`}>All skills</a>
      </p>
      <h1>{skill.name}</h1>
      <p>{skill.description}</p>
      <div class="meta">
        {record.version !== null && <span>v{record.version}</span>}
        <TrustBadges level={trust.verdict.level} requiresReview={trust.verdict.requires_review} />
        <AuditBadge audit={skill.audit} />
        {skill.has_scripts && <ScriptMarker />}
        <span>
          {record.files.length} {record.files.length === 1 ? "file" : "files"}, {formatBytes(record.total_bytes)}
        </span>
        {record.license !== null && <span>license: {record.license}</span>}
      </div>
      {skill.tags.length > 0 && (
        <ul class="tags" aria-label="Tags">
          {skill.tags.map((t) => (
            <li>{t}</li>
          ))}
        </ul>
      )}
      {view.lifecycle?.deprecated != null && (
        <div class="notice" role="note">
          <strong>Deprecated:</strong> {view.lifecycle.deprecated}
          {view.lifecycle.replaced_by !== null && (
            <>
              {" "}
              Use <a href={`${view.links.ui}/skills/${view.lifecycle.replaced_by}`}>{view.lifecycle.replaced_by}</a> instead.
            </>
          )}
        </div>
      )}
      {trust.verdict.advisories.length > 0 && (
        <div class="notice" role="note">
          <strong>Advisory in force:</strong>
          <ul>
            {trust.verdict.advisories.map((a) => (
              <li>
                {a.advisory_id ?? "(unnamed)"} ({a.severity}): {a.hidden_issue}
              </li>
            ))}
          </ul>
        </div>
      )}
      <div class="layout">
        <aside>
          <Outline view={view} />
        </aside>
        <div>
          <UseList id="when-to-use" title="When to use" items={record.when_to_use} />
          <UseList id="when-not-to-use" title="When not to use" items={record.when_not_to_use} />
          <section aria-labelledby="install">
            <h2 id="install">Install</h2>
            {installSnippets(skill.name, view.install).map((s) => (
              <Snippet {...s} />
            ))}
          </section>
          <section aria-labelledby="instructions">
            <h2 id="instructions">Instructions (SKILL.md)</h2>
            {view.bodyTruncated && (
              <p class="notice" role="note">
                This page shows the start of a long SKILL.md. <a href={view.fileUrl("SKILL.md")}>Read the whole file</a>.
              </p>
            )}
            <div class="body" dangerouslySetInnerHTML={{ __html: view.bodyHtml }} />
          </section>
          <Files view={view} />
          <Trust view={view} />
          <AuditPanel audit={record.audit} fileUrl={view.fileUrl} />
          {record.provenance && <Provenance provenance={record.provenance} />}
        </div>
      </div>
    </Layout>
  );
}

/** A blocked skill's page: the advisory, and nothing to install. */
export function BlockedPage(props: { links: PageLinks; name: string; advisory: BlockingAdvisory }) {
  const a = props.advisory;
  return (
    <Layout title={`${props.name} is blocked: skillshelf`} links={props.links}>
      <p>
        <a href={`${props.links.ui}/`}>All skills</a>
      </p>
      <h1>{props.name}</h1>
      <div class="notice bad" role="alert">
        <h2>Blocked: do not use this skill</h2>
        <p>
          Advisory <strong>{a.advisory_id ?? "(unnamed)"}</strong> ({a.severity}) blocks it: {a.hidden_issue}
        </p>
        {a.reference !== null && (
          <p>
            Reference: <code>{a.reference}</code>
          </p>
        )}
        <p>The shelf serves none of its files and offers nothing to install.</p>
      </div>
    </Layout>
  );
}
