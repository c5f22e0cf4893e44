// The routes the storage budget counts (test/worker/budget/storage-ops.test.ts) and the budget
// bench measures (bench/budget.bench.ts): one line per route, over any shelf through a subject.
// A new surface adds its routes here, once, and both pick them up.

/** The skill and files a route table is aimed at, on whatever shelf it runs against. */
export interface BudgetSubject {
  /** A listed skill with a reference, an asset and a script. */
  skill: string;
  /** Paths inside the skill. */
  reference: string;
  asset: string;
  script: string;
  /** A section key of its SKILL.md outline. */
  section: string;
  /** A search query that finds something. */
  query: string;
  /** The publish token the admin routes send. */
  adminToken: string;
  /**
   * The skill's Claude Code plugin zip as the marketplace names it
   * (`/.claude-plugin/plugins/<skill>/<sha256>.zip`): only the built generation knows the digest.
   */
  pluginArchive: string;
}

/**
 * How a request to a private shelf signs in: an OAuth access token (a KV read of the token on every
 * request, no isolate cache) or a static read token held as READ_TOKEN_SHA256 (no storage at all).
 */
export type PrivateSignIn = "oauth" | "read-token";

/** One counted route: the family the bench table groups it under, a unique label, the request and its answer's status. */
export interface BudgetRoute {
  family: "static" | "well-known" | "v1" | "mcp" | "ui" | "clawhub" | "claude" | "admin" | "private";
  /**
   * Set on a private shelf's route: the runner sends `Authorization: Bearer <token>` with a token of
   * this kind, obtained before any route is counted (the token is known only then).
   */
  signIn?: PrivateSignIn;
  label: string;
  method: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  body?: string;
  status: number;
  /** Sent with the ETag an unconditional GET of the same path answered (a 304 route). */
  conditional?: true;
}

const JSON_BODY = { "Content-Type": "application/json" };
const HTML = { Accept: "text/html" };

function get(family: BudgetRoute["family"], path: string, extra: Partial<BudgetRoute> = {}): BudgetRoute {
  return { family, label: `GET ${path}${extra.conditional ? " If-None-Match" : ""}`, method: "GET", path, status: extra.conditional ? 304 : 200, ...extra };
}

function post(family: BudgetRoute["family"], path: string, body: unknown, status = 200): BudgetRoute {
  return { family, label: `POST ${path}`, method: "POST", path, headers: JSON_BODY, body: JSON.stringify(body), status };
}

/** A stateless 2026-07-28 /mcp call (no initialize), as the sweep and the SDK send it. */
function mcp(method: string, params: Record<string, unknown> = {}, label = method): BudgetRoute {
  const named = params.name ?? params.uri;
  return {
    family: "mcp",
    label: `POST /mcp ${label}`,
    method: "POST",
    path: "/mcp",
    headers: {
      ...JSON_BODY,
      Accept: "application/json, text/event-stream",
      "Mcp-Protocol-Version": "2026-07-28",
      "Mcp-Method": method,
      ...(typeof named === "string" ? { "Mcp-Name": named } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "budget", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
    status: 200,
  };
}

function tool(name: string, args: Record<string, unknown>): BudgetRoute {
  return mcp("tools/call", { name, arguments: args }, `tools/call ${name}`);
}

/**
 * Every route family's routes over `s`. Labels are unique and name the request, not the shelf,
 * except where the path holds the subject's names.
 * @example budgetRoutes({ skill: "nested", reference: "references/guide.md", asset: "assets/logo.png", script: "scripts/run.sh", section: "nested", query: "guide", adminToken, pluginArchive })
 */
export function budgetRoutes(s: BudgetSubject): BudgetRoute[] {
  const k = s.skill;
  const inFolder = (path: string) => path.slice(path.indexOf("/") + 1);
  return [
    get("static", "/skills/index.json"),
    get("static", `/skills/${k}/index.json`),
    get("static", `/skills/${k}/SKILL.md`),
    get("static", `/skills/${k}/SKILL.md`, { conditional: true }),
    get("static", `/skills/${k}/${s.reference}`),
    get("static", `/skills/${k}/${s.asset}`),
    get("well-known", "/.well-known/agent-skills/index.json"),
    get("well-known", "/.well-known/agent-skills/index.json", { conditional: true }),
    get("well-known", "/.well-known/skills/index.json"),
    get("well-known", `/.well-known/agent-skills/${k}.tar.gz`),
    get("well-known", `/.well-known/agent-skills/${k}.zip`),
    get("well-known", `/.well-known/agent-skills/${k}/${s.reference}`),
    get("v1", "/v1/shelf"),
    get("v1", "/v1/openapi.json"),
    get("v1", "/v1/catalog"),
    get("v1", "/v1/catalog?format=markdown"),
    get("v1", "/v1/fast-path"),
    get("v1", `/v1/search?q=${encodeURIComponent(s.query)}`),
    get("v1", `/api/search?q=${encodeURIComponent(s.query)}&limit=10`),
    get("v1", "/v1/skills"),
    get("v1", `/v1/skills/${k}`),
    get("v1", `/v1/skills/${k}/body`),
    get("v1", `/v1/skills/${k}/outline`),
    get("v1", `/v1/skills/${k}/sections/${s.section}`),
    get("v1", `/v1/skills/${k}/resources`),
    get("v1", `/v1/skills/${k}/resources/${s.reference}`),
    get("v1", "/v1/trust"),
    get("v1", `/v1/trust/${k}`),
    get("v1", `/v1/skills/${k}/versions`),
    get("v1", `/v1/skills/${k}/versions/*`),
    get("v1", "/v1/changes"),
    post("v1", "/v1/select", { names: [k] }),
    post("v1", "/v1/resolve", { skills: { [k]: "*" } }),
    mcp("server/discover"),
    mcp("tools/list"),
    mcp("resources/list"),
    mcp("resources/templates/list"),
    mcp("resources/read", { uri: `skill://${k}/SKILL.md` }, "resources/read SKILL.md"),
    mcp("resources/read", { uri: `skill://${k}/${s.reference}` }, "resources/read reference"),
    mcp("skills/list"),
    tool("get_skill_metadata", { skill_id: k }),
    tool("get_skill_body", { skill_id: k }),
    tool("get_skill_outline", { skill_id: k }),
    tool("get_skill_section", { skill_id: k, key: s.section }),
    tool("list_skill_resources", { skill_id: k }),
    tool("get_skill_reference", { skill_id: k, name: inFolder(s.reference) }),
    tool("get_skill_asset", { skill_id: k, name: inFolder(s.asset) }),
    tool("get_skill_script", { skill_id: k, name: inFolder(s.script) }),
    get("ui", "/ui/", { headers: HTML }),
    get("ui", `/ui/?q=${encodeURIComponent(s.query)}`, { headers: HTML }),
    get("ui", `/ui/skills/${k}`, { headers: HTML }),
    get("ui", `/ui/files/${k}/${s.reference}`, { headers: HTML }),
    get("ui", "/ui/feed.xml"),
    get("ui", `/ui/skills/${k}/feed.xml`),
    get("clawhub", "/.well-known/clawhub.json"),
    get("clawhub", `/api/v1/search?q=${encodeURIComponent(s.query)}`),
    get("clawhub", "/api/v1/skills"),
    get("clawhub", `/api/v1/skills/${k}`),
    get("clawhub", `/api/v1/skills/${k}/versions`),
    get("clawhub", `/api/v1/skills/${k}/file?path=SKILL.md`),
    get("clawhub", `/api/v1/download?slug=${k}`),
    get("claude", "/.claude-plugin/marketplace.json"),
    get("claude", "/.claude-plugin/marketplace.json", { conditional: true }),
    // Labelled without the digest, which changes with the plugin zip's format.
    get("claude", s.pluginArchive, { label: `GET /.claude-plugin/plugins/${k}/<sha256>.zip` }),
    get("admin", "/admin/v1/pointer", { headers: { Authorization: `Bearer ${s.adminToken}` } }),
    get("admin", "/admin/v1/history", { headers: { Authorization: `Bearer ${s.adminToken}` } }),
  ];
}

/** The label prefix of a private route, by how it signs in. */
const SIGN_IN_LABEL: Record<PrivateSignIn, string> = { oauth: "OAuth", "read-token": "read token" };

/**
 * The private shelf's routes over `s`: the same published shelf with SHELF_VISIBILITY private, one
 * request of each kind an agent or a person makes (a file, the v0.2 index, the API, MCP's listing and
 * read, a page), once signed in with an OAuth access token and once with a static read token, so the
 * table shows what OAuth costs on top of read access. Labelled "OAuth GET …" and "read token GET …".
 * @example privateBudgetRoutes(subject).map((r) => r.label) // ["OAuth GET /skills/nested/SKILL.md", …]
 */
export function privateBudgetRoutes(s: BudgetSubject): BudgetRoute[] {
  const k = s.skill;
  const requests = [
    get("private", `/skills/${k}/SKILL.md`),
    get("private", "/.well-known/agent-skills/index.json"),
    get("private", `/v1/skills/${k}`),
    { ...mcp("skills/list"), family: "private" as const },
    { ...mcp("resources/read", { uri: `skill://${k}/SKILL.md` }, "resources/read SKILL.md"), family: "private" as const },
    get("private", `/ui/skills/${k}`, { headers: HTML }),
  ];
  return (["oauth", "read-token"] as const).flatMap((signIn) =>
    requests.map((route) => ({ ...route, signIn, label: `${SIGN_IN_LABEL[signIn]} ${route.label}` })),
  );
}
