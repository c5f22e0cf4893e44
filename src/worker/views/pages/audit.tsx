/** @jsxImportSource hono/jsx */
// The audit on the pages: a badge beside the trust badges (home and skill page) when the audit
// found something, and the skill page's findings panel, each finding linked to the file view.
// Skills without findings show neither, so their pages are as before.
import { hasFindings, servedAudit } from "../../../core/audit/published.ts";
import type { EntryAudit, RecordAudit } from "../../../core/generation/manifest.ts";

const SEVERITY_ORDER = ["critical", "high", "medium", "low", "info"] as const;

/** "2 high, 1 medium": a summary's counts in words. */
function countsInWords(counts: EntryAudit["counts"]): string {
  return SEVERITY_ORDER.filter((s) => counts[s])
    .map((s) => `${counts[s]} ${s}`)
    .join(", ");
}

/**
 * The audit badge of a skill with findings: red for an unacknowledged critical, amber for an
 * unacknowledged high, plain otherwise (shown, never gating); nothing for a clean skill.
 */
export function AuditBadge(props: { audit: EntryAudit | undefined }) {
  const audit = props.audit;
  if (!hasFindings(audit)) return null;
  const open = audit.unacknowledged;
  const tone = open?.critical ? " bad" : open?.high ? " warn" : "";
  const label = open?.critical ? `audit: ${open.critical} critical` : open?.high ? `audit: ${open.high} high` : `audit: ${countsInWords(audit.counts)}`;
  const acknowledged = audit.acknowledged ? `; ${audit.acknowledged} acknowledged` : "";
  return (
    <span class={`badge${tone}`} title={`Static audit findings: ${countsInWords(audit.counts)}${acknowledged} (${audit.rule_set})`}>
      {label}
    </span>
  );
}

/**
 * The findings panel: every finding, most severe first, with its id (what `attest --accept`
 * takes), file and line linked to the file view, message and excerpt, and whether it is acknowledged.
 */
export function AuditPanel(props: { audit: RecordAudit | undefined; fileUrl(path: string): string }) {
  if (!props.audit || props.audit.findings.length === 0) return null;
  const audit = servedAudit(props.audit);
  return (
    <section aria-labelledby="audit">
      <h2 id="audit">Audit findings</h2>
      <p class="muted">
        {countsInWords(audit.summary.counts)} ({audit.rule_set}). A static scan of this tree, not a proof: read the files before you trust them. A critical
        finding blocks the skill and a high one requires review until a validation record acknowledges it.
      </p>
      <ul class="findings">
        {audit.findings.map((f) => (
          <li data-severity={f.severity}>
            <span class={`badge${f.acknowledged ? "" : f.severity === "critical" ? " bad" : f.severity === "high" ? " warn" : ""}`}>{f.severity}</span>{" "}
            <a href={props.fileUrl(f.file)}>
              {f.file}:{f.line}:{f.column}
            </a>{" "}
            <code>{f.rule}</code>
            {f.acknowledged && <span class="muted"> (acknowledged)</span>}
            <p>{f.message}</p>
            {f.excerpt !== "" && <pre>{f.excerpt}</pre>}
          </li>
        ))}
      </ul>
    </section>
  );
}
