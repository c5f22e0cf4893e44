// Atom feeds (RFC 4287) of what changed on a shelf: one entry per history entry, newest first,
// its title a one-line summary and its content the change document in words; a skill's feed
// keeps only the entries that name it. Pure text: the Worker serves it, tests validate it.
import type { ChangeDocument } from "./document.ts";

/** The Atom media type. */
export const ATOM_MEDIA_TYPE = "application/atom+xml";

/** One history entry as a feed shows it. */
export interface FeedEntry {
  seq: number;
  action: ChangeDocument["action"];
  at: string;
  generation: string;
  changes: ChangeDocument | null;
}

/** A feed's frame: where it lives and what it is about. */
export interface FeedFrame {
  /** The feed's own absolute URL (its id and rel=self). */
  self: string;
  /** The page it is the feed of (rel=alternate, and each entry's link). */
  alternate: string;
  title: string;
  /** Only entries naming this skill, described for it alone; null: the whole shelf. */
  skill: string | null;
}

function xml(text: string): string {
  // XML 1.0 cannot carry most C0 controls even escaped; none belong in a feed.
  return text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, "")
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");
}

const short = (tree: string) => tree.slice(0, 12);
const version = (v: string | null, tree: string) => (v !== null ? `${v} (${short(tree)})` : short(tree));

/** The change document in lines, for the whole shelf or one skill. */
export function changeLines(doc: ChangeDocument, skill: string | null = null): string[] {
  const on = (name: string) => skill === null || name === skill;
  const lines: string[] = [];
  for (const a of doc.added) if (on(a.name)) lines.push(`added ${a.name} ${version(a.version, a.tree_hash)}`);
  for (const c of doc.changed) {
    if (!on(c.name)) continue;
    const files = c.files ? `: ${c.files.added.length} file(s) added, ${c.files.removed.length} removed, ${c.files.changed.length} changed` : "";
    lines.push(`changed ${c.name} ${version(c.from_version, c.from_tree)} -> ${version(c.to_version, c.to_tree)}${files}`);
  }
  for (const r of doc.renamed) if (on(r.from) || on(r.to)) lines.push(`renamed ${r.from} -> ${r.to}`);
  for (const r of doc.removed) if (on(r.name)) lines.push(`removed ${r.name}`);
  for (const d of doc.deprecated)
    if (on(d.name)) lines.push(`deprecated ${d.name}: ${d.reason ?? "no reason given"}${d.replaced_by ? ` (use ${d.replaced_by})` : ""}`);
  for (const u of doc.undeprecated) if (on(u.name)) lines.push(`no longer deprecated: ${u.name}`);
  for (const b of doc.blocked) if (on(b.name)) lines.push(`BLOCKED ${b.name} by advisory ${b.advisory_id ?? "(unnamed)"} (${b.severity})`);
  for (const u of doc.unblocked) if (on(u.name)) lines.push(`unblocked ${u.name}`);
  return lines;
}

/** The entry's one-line title. */
export function entryTitle(entry: FeedEntry, skill: string | null = null): string {
  const what = { publish: "Publish", rollback: "Rollback", advisory: "Advisory change" }[entry.action];
  if (!entry.changes) return `${what} ${entry.seq}: generation ${short(entry.generation)}`;
  const lines = changeLines(entry.changes, skill);
  if (lines.length === 0) return `${what} ${entry.seq}: nothing changed`;
  return `${what} ${entry.seq}: ${lines[0]}${lines.length > 1 ? ` and ${lines.length - 1} more` : ""}`;
}

/** True when the entry belongs in the feed (a skill's feed: it names the skill). */
export function entryInFeed(entry: FeedEntry, skill: string | null): boolean {
  return skill === null || (entry.changes !== null && changeLines(entry.changes, skill).length > 0);
}

/**
 * The Atom feed document. `updated` is the newest entry's time (or `fallbackUpdated` when it has
 * none), so the same history gives the same bytes.
 * @example renderAtomFeed({ self, alternate, title: "acme skills", skill: null }, entries, "2026-12-02T09:00:00Z")
 */
export function renderAtomFeed(frame: FeedFrame, entries: readonly FeedEntry[], fallbackUpdated: string): string {
  const kept = entries.filter((e) => entryInFeed(e, frame.skill)).sort((a, b) => b.seq - a.seq);
  const updated = kept[0]?.at ?? fallbackUpdated;
  const out = [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `  <id>${xml(frame.self)}</id>`,
    `  <title>${xml(frame.title)}</title>`,
    `  <updated>${xml(updated)}</updated>`,
    "  <author><name>skillshelf</name></author>",
    `  <link rel="self" type="${ATOM_MEDIA_TYPE}" href="${xml(frame.self)}"/>`,
    `  <link rel="alternate" type="text/html" href="${xml(frame.alternate)}"/>`,
    "  <generator>skillshelf</generator>",
  ];
  for (const e of kept) {
    const lines = e.changes ? changeLines(e.changes, frame.skill) : ["(no change document for this entry)"];
    out.push(
      "  <entry>",
      `    <id>${xml(`${frame.self}#seq-${e.seq}`)}</id>`,
      `    <title>${xml(entryTitle(e, frame.skill))}</title>`,
      `    <updated>${xml(e.at)}</updated>`,
      `    <link rel="alternate" type="text/html" href="${xml(frame.alternate)}"/>`,
      `    <category term="${e.action}"/>`,
      `    <content type="text">${xml([`generation ${e.generation}`, ...lines].join("\n"))}</content>`,
      "  </entry>",
    );
  }
  out.push("</feed>", "");
  return out.join("\n");
}
