// The audit's rule table: every rule's stable id, family, severity and the message a reviewer
// acts on. Ids never change meaning; a new or changed rule bumps AUDIT_RULE_SET, which makes a
// build rescan every skill (findings are cached by tree hash and rule-set version).

export type Severity = "critical" | "high" | "medium" | "low" | "info";

/** Most severe first. */
export const SEVERITIES: readonly Severity[] = ["critical", "high", "medium", "low", "info"];

/** 4 for critical … 0 for info. */
export function severityRank(s: Severity): number {
  return 4 - SEVERITIES.indexOf(s);
}

export function isSeverity(value: string): value is Severity {
  return (SEVERITIES as readonly string[]).includes(value);
}

/** The version of the rules below; findings computed under another version are stale. */
export const AUDIT_RULE_SET = "skillshelf-audit/2026.12.1";

export type RuleFamily = "hidden-text" | "agent-instruction" | "remote-code" | "obfuscation" | "exfiltration" | "persistence" | "autorun" | "capability";

export interface AuditRule {
  id: string;
  family: RuleFamily;
  /** The severity of an instruction or executable code; an explanation draws less (see scan.ts). */
  severity: Severity;
  title: string;
  /** What is wrong and what the reviewer should do. */
  help: string;
}

const rule = (id: string, family: RuleFamily, severity: Severity, title: string, help: string): AuditRule => ({ id, family, severity, title, help });

/** Every rule, in family order. */
export const AUDIT_RULES: readonly AuditRule[] = [
  rule(
    "hidden.unicode-tags",
    "hidden-text",
    "critical",
    "Invisible Unicode tag characters",
    "Unicode tag characters (U+E0000–U+E007F) spell text the agent reads and a reviewer cannot see. Delete them; no legitimate skill needs them.",
  ),
  rule(
    "hidden.bidi-control",
    "hidden-text",
    "high",
    "Bidirectional control character",
    "Bidirectional overrides and isolates (Trojan Source) make text display in a different order than it is read. Remove them or justify them in review.",
  ),
  rule(
    "hidden.zero-width-in-word",
    "hidden-text",
    "high",
    "Zero-width character inside a word",
    "A zero-width character splits a word so a keyword filter or a reviewer's search misses it. Remove it.",
  ),
  rule(
    "hidden.confusable-name",
    "hidden-text",
    "high",
    "Look-alike or mixed-script name",
    "The skill's name or title mixes scripts or uses look-alike letters, so it can pose as another skill. Use plain ASCII.",
  ),
  rule(
    "instruction.hidden-comment",
    "agent-instruction",
    "high",
    "Instructions in a hidden comment",
    "An HTML comment or hidden block carries instructions: the agent reads them, a rendered page does not show them. Move them into the visible text or delete them.",
  ),
  rule(
    "instruction.override",
    "agent-instruction",
    "high",
    "Tells the agent to ignore its instructions",
    "Text tells the agent to ignore or replace its earlier instructions (prompt injection). Delete it.",
  ),
  rule(
    "instruction.concealment",
    "agent-instruction",
    "high",
    "Tells the agent to hide something from the user",
    "Text tells the agent not to tell the user, or to act silently. A skill must never ask for concealment.",
  ),
  rule(
    "instruction.approval-bypass",
    "agent-instruction",
    "high",
    "Tells the agent to act without approval",
    "Text tells the agent to run commands or make changes without asking, or to skip permission checks. Require confirmation instead.",
  ),
  rule(
    "instruction.render-exfiltration",
    "agent-instruction",
    "critical",
    "Image or link URL carries conversation data",
    "A Markdown image or link URL is built from conversation data, secrets or placeholders; rendering it sends that data to its host. Delete it.",
  ),
  rule(
    "instruction.dynamic-context",
    "agent-instruction",
    "medium",
    "Runs a command when the skill loads",
    "Claude Code runs !`command` lines when the skill is loaded, before anyone sees the output. Check that the command is harmless.",
  ),
  rule(
    "instruction.dynamic-context-risky",
    "agent-instruction",
    "high",
    "Runs a network or shell command when the skill loads",
    "A !`command` line that reaches the network, pipes into a shell or reads credentials runs as soon as the skill loads. Remove it.",
  ),
  rule(
    "instruction.frontmatter-hooks",
    "agent-instruction",
    "high",
    "Frontmatter hooks",
    "Hooks in the frontmatter run commands on agent events without the user asking. Review every command, or remove the hooks.",
  ),
  rule(
    "remote.pipe-to-shell",
    "remote-code",
    "critical",
    "Download piped into a shell or interpreter",
    "Code downloaded at run time is executed unseen (`curl … | sh`). Vendor the script into the skill so it is reviewed and hashed.",
  ),
  rule(
    "remote.fetch-execute",
    "remote-code",
    "critical",
    "Downloads code and executes it",
    "The file fetches content and executes it (eval/exec of a response, download then chmod +x and run). Vendor the code instead.",
  ),
  rule(
    "remote.url-install",
    "remote-code",
    "high",
    "Installs a package from a URL or another index",
    "Packages installed from a URL, a git remote or an extra index bypass the registry and pinning. Pin a registry package by version and hash.",
  ),
  rule("remote.miner", "remote-code", "critical", "Cryptocurrency miner", "A mining pool URL (stratum) or a known miner binary. Delete the skill."),
  rule(
    "obfuscation.decode-execute",
    "obfuscation",
    "critical",
    "Decodes a payload and executes it",
    "Base64, hex, compressed or char-code data is decoded and executed, hiding what runs. Replace it with readable code.",
  ),
  rule(
    "obfuscation.opaque-blob",
    "obfuscation",
    "medium",
    "Long opaque blob in code",
    "A long base64 or hex string in a script cannot be reviewed. Ship the data as a named file or explain it.",
  ),
  rule(
    "exfiltration.credential-send",
    "exfiltration",
    "critical",
    "Reads credentials and sends data over the network",
    "The same file reads a credential location (SSH keys, cloud credentials, .env, keychains, browser profiles) or the whole environment, and sends data over the network. Remove it.",
  ),
  rule(
    "exfiltration.credential-read",
    "exfiltration",
    "medium",
    "Reads a credential location",
    "The file reads SSH keys, cloud credentials, .env files, keychains or browser profiles. Check that the skill needs it.",
  ),
  rule(
    "exfiltration.env-dump",
    "exfiltration",
    "medium",
    "Reads the whole environment",
    "The file collects every environment variable (secrets included). Read only the variables the skill needs.",
  ),
  rule(
    "exfiltration.reverse-shell",
    "exfiltration",
    "critical",
    "Reverse shell",
    "A shell is connected to a network socket, handing control of the machine to a remote host. Delete the skill.",
  ),
  rule(
    "persistence.shell-startup",
    "persistence",
    "high",
    "Writes a shell start-up file",
    "Writing ~/.bashrc, ~/.zshrc, ~/.profile and similar makes code run in every later shell. A skill must not change them.",
  ),
  rule(
    "persistence.scheduler",
    "persistence",
    "high",
    "Installs a scheduled or start-up job",
    "crontab, launch agents, systemd units, autostart entries or Run keys make code run later without the agent. A skill must not install them.",
  ),
  rule(
    "persistence.git-hooks",
    "persistence",
    "high",
    "Writes git hooks",
    "Writing .git/hooks or setting core.hooksPath makes code run on every commit. A skill must not install hooks.",
  ),
  rule(
    "autorun.python-import",
    "autorun",
    "high",
    "Python file that runs on its own with side effects",
    "conftest.py, setup.py, sitecustomize.py and *.pth files run when a tool merely imports or collects them; this one runs commands or reaches the network. Remove it.",
  ),
  rule(
    "autorun.file",
    "autorun",
    "medium",
    "File that a tool runs on its own",
    "conftest.py, setup.py, *.pth, .envrc and similar files run when a tool merely opens the folder. Check that the skill needs it.",
  ),
  rule(
    "autorun.install-script",
    "autorun",
    "high",
    "Package install script",
    "package.json install scripts (preinstall, install, postinstall, prepare) run on `npm install`. Remove them.",
  ),
  rule(
    "autorun.on-open",
    "autorun",
    "high",
    "Runs when a folder is opened",
    ".envrc (direnv) and editor tasks that run on folder open execute when a person or an agent opens the folder. Remove them.",
  ),
  rule(
    "autorun.executable-binary",
    "autorun",
    "high",
    "Executable binary",
    "An ELF, Mach-O or PE executable cannot be reviewed. Ship source, or build it from source in review.",
  ),
  rule(
    "autorun.nested-archive",
    "autorun",
    "medium",
    "Nested archive",
    "An archive inside a skill hides its contents from review and from the tree hash's meaning. Ship the files themselves.",
  ),
  rule(
    "autorun.archive-with-code",
    "autorun",
    "high",
    "Archive holding code or executables",
    "A nested archive holds scripts or executables that no reviewer sees. Ship the files themselves.",
  ),
  rule(
    "capability.allow-all-tools",
    "capability",
    "high",
    "allowed-tools grants everything",
    "`allowed-tools` pre-approves every tool or every shell command (`*`, `Bash(*)`). Grant the narrow commands the skill needs, such as `Bash(git status:*)`.",
  ),
  rule(
    "capability.unrestricted-shell",
    "capability",
    "medium",
    "allowed-tools grants an unrestricted shell",
    "`allowed-tools` pre-approves Bash (or another shell) without a command pattern. Narrow it to the commands the skill runs.",
  ),
];

const BY_ID = new Map(AUDIT_RULES.map((r) => [r.id, r]));

/** The rule with this id; throws on an unknown id (a bug in the scanner, not user input). */
export function ruleById(id: string): AuditRule {
  const r = BY_ID.get(id);
  if (!r) throw new Error(`unknown audit rule ${id}`);
  return r;
}

export function isRuleId(id: string): boolean {
  return BY_ID.has(id);
}
