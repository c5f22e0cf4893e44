// What a shelf says now about skills someone has installed: each name's answer from
// /v1/skills/{name} (redirects not followed: a 301 is a rename) and, for installs the `skills` CLI
// recorded, the v0.2 well-known index's digests. Shared by `outdated` and `install`'s warnings.
import type { ShelfAnswer } from "../../core/changes/outdated.ts";
import { CliError, printable } from "./cli.ts";

const INDEX_PATH = "/.well-known/agent-skills/index.json";

/**
 * GETs `url` from a shelf with its read token, if any (JSON asked for unless `json` is false); a
 * network failure is a CliError naming the shelf's origin. Also `audit --since`'s reads.
 */
export async function shelfGet(url: string, token: string | undefined, options: { json?: boolean; redirect?: "follow" | "manual" } = {}): Promise<Response> {
  const headers = new Headers(options.json === false ? {} : { Accept: "application/json" });
  if (token) headers.set("Authorization", `Bearer ${token}`);
  try {
    return await fetch(url, { headers, redirect: options.redirect ?? "follow" });
  } catch (error) {
    throw new CliError(`cannot reach ${new URL(url).origin}: ${(error as Error).message}`);
  }
}

/**
 * What the shelf at `url` (its root, maybe with a /c/<token> prefix) answers for `name` now.
 * @throws CliError when the shelf refuses the read or answers something unexpected
 */
export async function askShelf(url: string, token: string | undefined, name: string): Promise<ShelfAnswer> {
  const res = await shelfGet(`${url}/v1/skills/${name}`, token, { redirect: "manual" });
  const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  if (res.status === 200 && body && typeof body.tree_hash === "string") {
    return {
      kind: "skill",
      tree_hash: body.tree_hash,
      version: typeof body.version === "string" ? body.version : null,
      deprecated: typeof body.deprecated === "string" ? body.deprecated : null,
      replaced_by: typeof body.replaced_by === "string" ? body.replaced_by : null,
    };
  }
  if (res.status === 301 && body && typeof body.replaced_by === "string") return { kind: "renamed", replaced_by: body.replaced_by };
  if (res.status === 410) {
    const advisory = (body?.advisory ?? null) as { advisory_id?: string | null } | null;
    return { kind: "blocked", advisory_id: advisory?.advisory_id ?? null, reason: typeof body?.detail === "string" ? body.detail : "blocked by an advisory" };
  }
  if (res.status === 404) return { kind: "gone" };
  if (res.status === 401) throw new CliError(`${new URL(url).origin} refused the read (401): pass a read token with --token-env NAME`);
  throw new CliError(`${new URL(url).origin} answered ${res.status} for /v1/skills/${name}; retry shortly`);
}

/**
 * The `digest` of every entry of the shelf's v0.2 well-known index, by name: what the `skills`
 * CLI records as `wellKnownDigest` when it installs from the index (the SHA-256 of the SKILL.md
 * or archive served, not a hash of the installed folder).
 * @throws CliError when the shelf serves no v0.2 index (SHELF_DISCOVERY=v0.1) or refuses the read
 */
export async function wellKnownDigests(url: string, token: string | undefined): Promise<Map<string, string>> {
  const res = await shelfGet(`${url}${INDEX_PATH}`, token, { redirect: "manual" });
  if (res.status === 401) throw new CliError(`${new URL(url).origin} refused the read (401): pass a read token with --token-env NAME`);
  if (res.status === 404)
    throw new CliError(
      `${new URL(url).origin} serves no v0.2 index at ${INDEX_PATH}, whose digests skills-lock.json's wellKnownDigest is compared with; check with --dir <the installed skills folder> instead`,
    );
  const body = (await res.json().catch(() => null)) as { skills?: unknown } | null;
  if (!res.ok || !body || !Array.isArray(body.skills)) throw new CliError(`${new URL(url).origin} answered ${res.status} for ${INDEX_PATH}; retry shortly`);
  const out = new Map<string, string>();
  for (const entry of body.skills as Array<Record<string, unknown>>) {
    if (typeof entry?.name === "string" && typeof entry.digest === "string") out.set(entry.name, entry.digest);
  }
  return out;
}

/** One line saying what is wrong with using a skill now, or null for current and newer ones (install's warnings). */
export function lifecycleWarning(name: string, answer: ShelfAnswer): string | null {
  switch (answer.kind) {
    case "blocked":
      return printable(`${name} is BLOCKED by ${answer.advisory_id ? `advisory ${answer.advisory_id}` : "an advisory"}: ${answer.reason}`);
    case "gone":
      return `${name} is no longer on the shelf (removed since it was locked)`;
    case "renamed":
      return printable(`${name} is deprecated: renamed to ${answer.replaced_by} (lock ${answer.replaced_by} instead)`);
    case "skill":
      return answer.deprecated === null
        ? null
        : printable(`${name} is deprecated: ${answer.deprecated}${answer.replaced_by ? ` (use ${answer.replaced_by} instead)` : ""}`);
  }
}
