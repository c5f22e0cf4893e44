// The skill page's install snippets: one per client, each only where it works (a private shelf's
// capability URLs, https for Claude Code's archives), with `<read-token>` standing in for any token.
import { MARKETPLACE_PATH } from "../../../core/api/claude-marketplace.ts";

/** The install snippets' URLs (a capability token is never put in them: `<read-token>` stands in). */
export interface InstallTargets {
  /** The shelf's URL for clients, e.g. "https://shelf.example" or "https://shelf.example/c/<read-token>". */
  shelfUrl: string;
  /** Whether clients must present a read token (a private shelf reached without a capability URL). */
  needsToken: boolean;
  /** Whether the shelf answers capability URLs (SHELF_CAPABILITY_URLS), the only way the skills CLI reaches a private shelf. */
  capabilityUrls: boolean;
  /** The shelf's Claude Code marketplace name (from its host name). */
  marketplace: string;
  pinnedSkillMd: string;
  pinnedArchive: string;
}

/** One client's install snippet; a `note` says why a client has none here (shown as text, not offered to copy). */
export interface InstallSnippet {
  id: string;
  title: string;
  text: string;
  note?: boolean;
}

/**
 * The copy-ready install snippets, one per client, each only where it works: the skills CLI sends
 * no headers, so on a private shelf it gets a capability URL when those are on, and a note otherwise.
 */
export function installSnippets(name: string, t: InstallTargets): InstallSnippet[] {
  const auth = t.needsToken ? `, headers={"Authorization": "Bearer <read-token>"}` : "";
  const mcp = {
    mcpServers: {
      skillshelf: {
        type: "http",
        url: `${t.shelfUrl}/mcp?include=${name}`,
        ...(t.needsToken ? { headers: { Authorization: "Bearer <read-token>" } } : {}),
      },
    },
  };
  return [
    cliSnippet(name, t),
    {
      id: "install-clawhub",
      title: "clawhub CLI (OpenClaw)",
      // Always through CLAWHUB_REGISTRY: without it the CLI asks clawhub.ai; and a private shelf's token in
      // its own config file, since the CLI sends a stored token to whichever registry it talks to (docs/clients.md).
      text: t.needsToken
        ? `export CLAWHUB_REGISTRY=${t.shelfUrl} CLAWHUB_CONFIG_PATH=~/.config/clawhub/shelf.json\nclawhub login --token <read-token>\nclawhub install ${name}`
        : `CLAWHUB_REGISTRY=${t.shelfUrl} clawhub install ${name}`,
    },
    claudeSnippet(name, t),
    {
      id: "install-python",
      title: "Python (agentskills-http)",
      text: [
        "from agentskills_core import SkillRegistry",
        "from agentskills_http import HTTPStaticFileSkillProvider",
        "",
        `provider = HTTPStaticFileSkillProvider("${t.shelfUrl}/skills", resource_manifest=True${auth})`,
        "registry = SkillRegistry()",
        `await registry.register("${name}", provider)`,
      ].join("\n"),
    },
    { id: "install-mcp", title: "MCP host config", text: JSON.stringify(mcp, null, 2) },
    { id: "install-pinned", title: "Pinned URLs (this generation, never change)", text: `${t.pinnedSkillMd}\n${t.pinnedArchive}` },
  ];
}

/**
 * Claude Code's marketplace snippet: one plugin per skill; archives need https at a real host name
 * (docs/clients.md). A private shelf is reached through a capability URL (the header form in the
 * settings is documented but untested), so with capability URLs off there is a note instead.
 */
function claudeSnippet(name: string, t: InstallTargets): InstallSnippet {
  const title = "Claude Code plugin";
  if (t.needsToken && !t.capabilityUrls) {
    return {
      id: "install-claude",
      title,
      note: true,
      text: "Claude Code reads a private shelf's marketplace through a capability URL, and this shelf's capability URLs are off (SHELF_CAPABILITY_URLS); docs/clients.md has the settings form with a header.",
    };
  }
  const base = t.needsToken ? `${t.shelfUrl.replace(/\/$/, "")}/c/<read-token>` : t.shelfUrl;
  return { id: "install-claude", title, text: `claude plugin marketplace add ${base}${MARKETPLACE_PATH}\nclaude plugin install ${name}@${t.marketplace}` };
}

/** The skills CLI's snippet (Node 22.20 or later), or the note that says why a private shelf has none. */
function cliSnippet(name: string, t: InstallTargets): InstallSnippet {
  if (!t.needsToken) return { id: "install-cli", title: "skills CLI", text: `npx skills add ${t.shelfUrl} --skill ${name}` };
  if (t.capabilityUrls) {
    return {
      id: "install-cli",
      title: "skills CLI",
      text: `# private shelf: the CLI sends no headers, so use a capability URL (docs/teams.md)\nnpx skills add -g ${t.shelfUrl.replace(/\/$/, "")}/c/<read-token> --skill ${name}`,
    };
  }
  return {
    id: "install-cli",
    title: "skills CLI",
    note: true,
    text:
      "The skills CLI sends no read token, and this private shelf's capability URLs are off (SHELF_CAPABILITY_URLS), so the CLI cannot reach it. " +
      "Use the Python or MCP snippets below, which send Authorization: Bearer <read-token>, or ask the shelf's owner to switch capability URLs on (docs/teams.md).",
  };
}
