// Paths whose JavaScript localeCompare order differs from byte order (case, punctuation, digits,
// accents), plus paths the `clawhub` CLI leaves out of its fingerprint, and the fingerprint the
// real CLI computes over them (each file's sha256 is the sha256 of its path), shared by the node
// test against the CLI and the workerd test of the Worker's own localeCompare.
export const LOCALE_ORDER_PATHS = [
  "SKILL.md",
  "references/guide.md",
  "references/Zeta.md",
  "references/_notes.md",
  "references/a-b.md",
  "references/a_b.md",
  "references/10.md",
  "references/9.md",
  "references/é.md",
  "references/e.md",
  "Assets/logo.png",
  "assets/b.png",
  ".hidden/x.md",
  "references/.draft.md",
  "node_modules/pkg/index.js",
];

export const LOCALE_ORDER_FINGERPRINT = "15b1380fb32c7de87dd94325528daf1fdbb280ce7518ad0d790d89cab635aea2";
