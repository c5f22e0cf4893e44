// `skillshelf init --check`: what a team's repository needs to change for the skillshelf version it now
// depends on, read from its wrangler.toml and package.json against requirements.ts. Each finding names
// the file, what is wrong and the edit; "edit" findings must be made before deploying this version,
// "notice" ones are advice (a placeholder still to replace, a var this version no longer reads).
import { readFile } from "node:fs/promises";
import path from "node:path";
import semver from "semver";
import { parse as parseToml } from "smol-toml";
import { parseWebhookReceivers, parseWebhookSecrets } from "../../../core/webhooks/config.ts";
import { CliError } from "../cli.ts";
import type { OwnPackage } from "../package-root.ts";
import {
  BINDINGS,
  COMPATIBILITY_DATE,
  COMPATIBILITY_FLAGS,
  OAUTH_COMPATIBILITY_FLAG,
  OPTIONAL_BINDINGS,
  OPTIONAL_VARS,
  PLACEHOLDER_KV_ID,
  VARS,
  VERSION_METADATA,
} from "./requirements.ts";

/** One thing --check found. */
export interface CheckFinding {
  level: "edit" | "notice";
  file: string;
  /** Where in the file: "[vars]", "[env.staging]", "devDependencies"… */
  where: string;
  message: string;
}

type Table = Record<string, unknown>;

const isTable = (value: unknown): value is Table => typeof value === "object" && value !== null && !Array.isArray(value);

/** The tables a Worker is configured by: the top level and each [env.<name>] (wrangler inherits neither bindings nor vars into one). */
function environments(config: Table): Array<{ label: string; table: Table; top: boolean }> {
  const list = [{ label: "top level", table: config, top: true }];
  if (isTable(config.env)) for (const [name, table] of Object.entries(config.env)) if (isTable(table)) list.push({ label: `[env.${name}]`, table, top: false });
  return list;
}

function checkWrangler(config: Table, file: string): CheckFinding[] {
  const findings: CheckFinding[] = [];
  const edit = (where: string, message: string) => findings.push({ level: "edit", file, where, message });
  const notice = (where: string, message: string) => findings.push({ level: "notice", file, where, message });

  const date = config.compatibility_date;
  if (typeof date !== "string") edit("compatibility_date", `missing: set compatibility_date = "${COMPATIBILITY_DATE}"`);
  else if (date < COMPATIBILITY_DATE)
    edit("compatibility_date", `is ${date}; this skillshelf is tested at ${COMPATIBILITY_DATE}: set compatibility_date = "${COMPATIBILITY_DATE}"`);
  const flags = Array.isArray(config.compatibility_flags) ? config.compatibility_flags : [];
  for (const flag of COMPATIBILITY_FLAGS) if (!flags.includes(flag)) edit("compatibility_flags", `add "${flag}"`);
  if (typeof config.main !== "string") edit("main", 'missing: set main = "src/worker.ts" (a file that exports skillshelf/worker\'s Worker)');

  for (const { label, table, top } of environments(config)) {
    for (const need of BINDINGS) {
      const list = Array.isArray(table[need.kind]) ? (table[need.kind] as unknown[]) : [];
      const found = list.find((b) => isTable(b) && b.binding === need.binding) as Table | undefined;
      const block = top ? `[[${need.kind}]]` : `[[${label.slice(1, -1)}.${need.kind}]]`;
      if (!found) {
        edit(
          label,
          `no ${need.kind === "r2_buckets" ? "R2 bucket" : "KV namespace"} bound as ${need.binding} (${need.why}): add a ${block} block with binding = "${need.binding}"`,
        );
      } else if (need.kind === "kv_namespaces" && found.id === PLACEHOLDER_KV_ID) {
        notice(label, `${need.binding}'s id is still the placeholder: before deploying, create it (npx wrangler kv namespace create <name>) and paste its id`);
      }
    }
    const version = table.version_metadata;
    if (!isTable(version) || version.binding !== VERSION_METADATA.binding) {
      const block = top ? "[version_metadata]" : `[${label.slice(1, -1)}.version_metadata]`;
      notice(
        label,
        `no ${block} bound as ${VERSION_METADATA.binding} (${VERSION_METADATA.why}): add it with binding = "${VERSION_METADATA.binding}", or every cold isolate builds each listing from all of the generation's shards`,
      );
    }
    const vars = isTable(table.vars) ? table.vars : {};
    const varsBlock = top ? "[vars]" : `[${label.slice(1, -1)}.vars]`;
    for (const need of VARS) {
      if (!(need.name in vars))
        edit(label, `var ${need.name} is missing (${need.why}): add ${need.name} = ${JSON.stringify(need.teamDefault)} under ${varsBlock}`);
    }
    const known = new Set([...VARS, ...OPTIONAL_VARS].map((v) => v.name));
    // OAuth on (its issuer set) needs its own KV namespace and, for client ID metadata documents, a flag.
    if (typeof vars.SHELF_OAUTH_ISSUER === "string" && vars.SHELF_OAUTH_ISSUER) {
      const kv = Array.isArray(table.kv_namespaces) ? (table.kv_namespaces as unknown[]) : [];
      const oauthKv = OPTIONAL_BINDINGS[0]!;
      if (!kv.some((b) => isTable(b) && b.binding === oauthKv.binding))
        edit(label, `SHELF_OAUTH_ISSUER turns OAuth on, which needs a KV namespace bound as ${oauthKv.binding} (${oauthKv.why})`);
      const flags = Array.isArray(table.compatibility_flags)
        ? table.compatibility_flags
        : Array.isArray(config.compatibility_flags)
          ? config.compatibility_flags
          : [];
      if (!flags.includes(OAUTH_COMPATIBILITY_FLAG))
        notice(
          label,
          `OAuth is on without the "${OAUTH_COMPATIBILITY_FLAG}" compatibility flag: clients that identify by a client ID metadata document are refused (docs/oauth.md)`,
        );
    }
    // The identity provider (docs/oauth.md) stays off without its client or an admission rule: say which is missing.
    if (typeof vars.SHELF_OIDC_ISSUER === "string" && vars.SHELF_OIDC_ISSUER) {
      if (!vars.SHELF_OIDC_CLIENT_ID)
        edit(label, `SHELF_OIDC_ISSUER is set without SHELF_OIDC_CLIENT_ID under ${varsBlock}: sign-in with the identity provider stays off`);
      if (!vars.SHELF_OIDC_ALLOWED_DOMAINS && !vars.SHELF_OIDC_REQUIRED_CLAIM)
        edit(
          label,
          `SHELF_OIDC_ISSUER is set without SHELF_OIDC_ALLOWED_DOMAINS or SHELF_OIDC_REQUIRED_CLAIM: sign-in with the identity provider stays off rather than admit every account it knows`,
        );
      notice(label, "sign-in with the identity provider also needs the SHELF_OIDC_CLIENT_SECRET and SHELF_SESSION_KEY secrets (npx wrangler secret put …)");
    }
    // Webhooks (docs/teams.md, "Webhooks"): the Worker's own rules, so a mistake is named here before a publish finds it.
    if (typeof vars.SHELF_WEBHOOK_URLS === "string") {
      const urls = parseWebhookReceivers(vars.SHELF_WEBHOOK_URLS);
      if ("problem" in urls) edit(label, `${urls.problem} (under ${varsBlock}); until it is fixed the Worker sends no webhooks`);
      else if (urls.receivers.some((r) => r.format === "standard"))
        notice(
          label,
          'webhooks to a plain URL are signed with the SHELF_WEBHOOK_SECRET secret: echo "whsec_$(openssl rand -base64 32)" | npx wrangler secret put SHELF_WEBHOOK_SECRET',
        );
    }
    if ("SHELF_WEBHOOK_SECRET" in vars)
      edit(
        label,
        `SHELF_WEBHOOK_SECRET is under ${varsBlock}, where it is committed: remove it, choose a new one and set it with npx wrangler secret put SHELF_WEBHOOK_SECRET`,
      );
    for (const name of Object.keys(vars)) {
      if (name.startsWith("SHELF_") && !known.has(name))
        notice(label, `var ${name} is not read by this skillshelf version; remove it from ${varsBlock} unless you use it yourself`);
    }
  }
  return findings;
}

function checkPackage(json: Table, own: OwnPackage, file: string): CheckFinding[] {
  const findings: CheckFinding[] = [];
  const dev = isTable(json.devDependencies) ? (json.devDependencies as Record<string, string>) : {};
  const range = own.peerDependencies.wrangler;
  const wrangler = dev.wrangler ?? (isTable(json.dependencies) ? (json.dependencies as Record<string, string>).wrangler : undefined);
  if (range) {
    if (wrangler === undefined)
      findings.push({ level: "edit", file, where: "devDependencies", message: `no wrangler: add "wrangler": "${own.devDependencies.wrangler}"` });
    else {
      const lowest = semver.minVersion(wrangler);
      if (lowest && !semver.satisfies(lowest, range))
        findings.push({
          level: "edit",
          file,
          where: "devDependencies",
          message: `wrangler ${wrangler} is outside the range this skillshelf supports (${range}): set "wrangler": "${own.devDependencies.wrangler}"`,
        });
    }
  }
  const node = dev.node;
  const pinned = own.devDependencies.node;
  if (pinned && node === undefined)
    findings.push({
      level: "notice",
      file,
      where: "devDependencies",
      message: `no pinned Node: add "node": "${pinned}" so npm scripts run on the Node wrangler needs (22 or later)`,
    });
  else if (pinned && node && semver.valid(node) && semver.major(node) < 22)
    findings.push({ level: "edit", file, where: "devDependencies", message: `node ${node} is too old for wrangler (22 or later): set "node": "${pinned}"` });
  return findings;
}

/**
 * The webhook settings in the local secrets files (.dev.vars, and .dev.vars.<env> for each
 * environment), which `wrangler dev` reads: their form is checked as the Worker would, never echoed.
 */
async function checkDevVars(dir: string, config: Table): Promise<CheckFinding[]> {
  const findings: CheckFinding[] = [];
  const files = [".dev.vars", ...environments(config).flatMap((e) => (e.top ? [] : [`.dev.vars.${e.label.slice(5, -1)}`]))];
  for (const file of files) {
    const text = await readOr(path.join(dir, file));
    if (text === undefined) continue;
    for (const [name, parse] of [
      ["SHELF_WEBHOOK_SECRET", parseWebhookSecrets],
      ["SHELF_WEBHOOK_URLS", parseWebhookReceivers],
    ] as const) {
      const line = new RegExp(`^\\s*${name}\\s*=\\s*(.*)$`, "m").exec(text);
      if (!line) continue;
      const value = line[1]!.trim().replace(/^(["'])(.*)\1$/, "$2");
      const parsed = parse(value);
      if ("problem" in parsed) findings.push({ level: "edit", file, where: name, message: `${parsed.problem}; local runs send no webhooks until it is fixed` });
    }
  }
  return findings;
}

async function readOr(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
}

/**
 * Everything a team repository at `dir` needs for this skillshelf version.
 * @example await checkTeamRepository(".", own) // => [{ level: "edit", file: "wrangler.toml", where: "top level", message: "var SHELF_DISCOVERY is missing …" }]
 */
export async function checkTeamRepository(dir: string, own: OwnPackage): Promise<CheckFinding[]> {
  const tomlFile = path.join(dir, "wrangler.toml");
  const toml = await readOr(tomlFile);
  if (toml === undefined) {
    const jsonc = (await readOr(path.join(dir, "wrangler.jsonc"))) ?? (await readOr(path.join(dir, "wrangler.json")));
    throw new CliError(
      jsonc === undefined
        ? `${dir} has no wrangler.toml: run init --check in a team repository that skillshelf init wrote (or pass its folder)`
        : `${dir} configures wrangler with JSON; init --check reads wrangler.toml only. Compare it by hand with the list in docs/teams.md ("Upgrading")`,
    );
  }
  let config: Table;
  try {
    config = parseToml(toml) as Table;
  } catch (error) {
    throw new CliError(`wrangler.toml is not valid TOML: ${(error as Error).message.split("\n")[0]}`);
  }
  const findings = checkWrangler(config, "wrangler.toml");
  findings.push(...(await checkDevVars(dir, config)));
  const pkg = await readOr(path.join(dir, "package.json"));
  if (pkg !== undefined) {
    try {
      findings.push(...checkPackage(JSON.parse(pkg) as Table, own, "package.json"));
    } catch (error) {
      if (error instanceof SyntaxError) throw new CliError(`package.json is not valid JSON: ${error.message}`);
      throw error;
    }
  }
  return findings;
}
