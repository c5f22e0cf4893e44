// A shelf as a Claude Code plugin marketplace (Claude Code 2.1.332, docs/clients.md): one plugin
// per skill, each an `archive` source (an https zip and its sha256). The plugin zip itself is the
// build's (src/core/generation/claude-plugin.ts); this module is the marketplace document.
import { z } from "zod";
import { deprecationNote, type LifecycleStatus } from "../changes/lifecycle.ts";

export {
  PluginArchiveError,
  pluginManifest,
  pluginVersion,
  pluginZip,
  type PluginManifest,
  type PluginSource,
} from "../generation/claude-plugin.ts";

/** Where a shelf's marketplace lives below a shelf URL (and its /c/<token> and /g/<generation> forms). */
export const MARKETPLACE_PATH = "/.claude-plugin/marketplace.json";
/** Where the plugin archives live: `<base>/<skill>/<sha256 of the plugin zip>.zip`. */
export const PLUGIN_ARCHIVE_BASE = "/.claude-plugin/plugins";

/** What a plugin's marketplace entry says of a skill the shelf holds for review. */
export const REVIEW_NOTE = "[Held for review on this shelf: read its files before an agent uses it.]";

/** One plugin of the marketplace, as Claude Code 2.1.332's schema reads it. */
export const MarketplacePluginSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    version: z.string(),
    source: z.object({ source: z.literal("archive"), url: z.string().url(), sha256: z.string().regex(/^[0-9a-f]{64}$/) }),
  })
  .meta({ id: "ClaudeMarketplacePlugin" });

/** The marketplace document (`claude plugin marketplace add <url>`). */
export const MarketplaceSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9][-A-Za-z0-9._]*$/),
    owner: z.object({ name: z.string() }),
    description: z.string(),
    plugins: z.array(MarketplacePluginSchema),
  })
  .meta({ id: "ClaudeMarketplace" });
export type Marketplace = z.infer<typeof MarketplaceSchema>;

/**
 * The marketplace's name, from the shelf's host name: what `claude plugin install <skill>@<name>`
 * names. Characters Claude Code does not take in a name become "-".
 * @example marketplaceName("skills.acme.example") // => "skills.acme.example"
 */
export function marketplaceName(hostname: string): string {
  const name = hostname.replace(/[^-A-Za-z0-9._]/g, "-").replace(/^[^A-Za-z0-9]+/, "");
  return name === "" ? "skillshelf" : name;
}

/**
 * A marketplace entry's description: the skill's own, after what the shelf says of it. A skill
 * lifecycle.yaml deprecates stays listed (an installed copy keeps updating, and Claude Code shows
 * why it should move), its entry saying so and naming the replacement's install command; one the
 * shelf holds for review carries REVIEW_NOTE. Neither changes the plugin zip, whose version
 * follows only its bytes.
 * @example pluginDescription("Reviews code.", false, { deprecated: "superseded", replaced_by: "review" }, "skills.acme.example")
 */
export function pluginDescription(description: string, requiresReview: boolean, lifecycle: LifecycleStatus | null = null, marketplace = ""): string {
  const notes: string[] = [];
  const deprecated = lifecycle ? deprecationNote(lifecycle) : null;
  if (deprecated !== null) {
    const install = lifecycle!.replaced_by !== null && marketplace !== "" ? ` (claude plugin install ${lifecycle!.replaced_by}@${marketplace})` : "";
    notes.push(`[${deprecated.replace(/\.$/, "")}${install}.]`);
  }
  if (requiresReview) notes.push(REVIEW_NOTE);
  return [...notes, description].join(" ");
}
