// What the Worker of this skillshelf version needs from the wrangler config that deploys it: the
// compatibility date and flags, the storage bindings, the vars (with a team's defaults) and the
// secrets. `skillshelf init` writes a team's wrangler.toml from it and `init --check` compares an
// existing one against it, so an upgrade is `npm update skillshelf` plus what --check names. A test
// holds the repository's own wrangler.toml to the same list (test/cli/team/requirements.test.ts).

/** The compatibility date this version is built and tested against; an older one may miss runtime behaviour it relies on. */
export const COMPATIBILITY_DATE = "2026-11-01";

/** Compatibility flags the Worker needs (none today; OAuth's client ID metadata documents will add one, docs/teams.md). */
export const COMPATIBILITY_FLAGS: readonly string[] = [];

/** A storage binding: the name the code reads it under, and what it is. */
export interface BindingRequirement {
  binding: string;
  kind: "r2_buckets" | "kv_namespaces";
  why: string;
}

export const BINDINGS: readonly BindingRequirement[] = [
  { binding: "SHELF_BUCKET", kind: "r2_buckets", why: "the shelf's generations, blobs and pointer (R2 is the source of truth)" },
  { binding: "SHELF_KV", kind: "kv_namespaces", why: "cached metadata and read-token records" },
];

/**
 * The deployment's version id (wrangler's `[version_metadata]`, redeclared in each [env.*] like the
 * bindings): it names the code and settings that built the listings the Worker keeps in R2 for
 * every cold isolate (src/worker/read/rendered.ts). Without it the Worker works, and every cold
 * isolate builds each listing from all of the generation's shards.
 */
export const VERSION_METADATA: Omit<BindingRequirement, "kind"> = {
  binding: "CF_VERSION_METADATA",
  why: "the deployment's version id, which names what built the listings kept in R2 for cold isolates",
};

/** A Worker variable, the value a new team shelf starts with, and what it means. */
export interface VarRequirement {
  name: string;
  teamDefault: string;
  why: string;
}

export const VARS: readonly VarRequirement[] = [
  { name: "SHELF_VISIBILITY", teamDefault: "private", why: '"private": every read needs a read token; "public": anyone may read' },
  {
    name: "SHELF_CAPABILITY_URLS",
    teamDefault: "off",
    why: '"on" lets clients that cannot send headers read through /c/<read token>/ (docs/http.md has the risks)',
  },
  { name: "SHELF_DISCOVERY", teamDefault: "all", why: 'which well-known families answer: "all", "v0.2" or "v0.1"' },
  { name: "SHELF_SIGNING_ORIGIN", teamDefault: "", why: "the origin signatures are bound to (the shelf's public URL); empty until you sign" },
  { name: "SHELF_SIGNING_KEYS", teamDefault: "[]", why: 'JSON [{"key_id", "public_key", "status"}]: the public halves of your signing keys' },
  { name: "SHELF_REQUIRE_SIGNATURES", teamDefault: "off", why: '"on": refuse to publish a generation not signed throughout by an active key' },
];

/** A secret (`wrangler secret put NAME`; .dev.vars locally), and whether the Worker works without it. */
export interface SecretRequirement {
  name: string;
  required: boolean;
  why: string;
}

export const SECRETS: readonly SecretRequirement[] = [
  { name: "PUBLISH_TOKEN_SHA256", required: true, why: "SHA-256 (hex) of the publish token; without it nothing can publish" },
  { name: "READ_TOKEN_SHA256", required: false, why: "comma-separated SHA-256 (hex) of read tokens; a private shelf needs at least one" },
  { name: "SHELF_SESSION_KEY", required: false, why: "random key (32+ bytes, hex) for the pages' sign-in sessions on a private shelf" },
  { name: "SHELF_OIDC_CLIENT_SECRET", required: false, why: "the identity provider's client secret, for sign-in with it (docs/oauth.md)" },
  {
    name: "SHELF_WEBHOOK_SECRET",
    required: false,
    why: 'whsec_<base64 of 24-64 random bytes> signing the webhooks (echo "whsec_$(openssl rand -base64 32)"; docs/teams.md, "Webhooks")',
  },
];

/**
 * What a team may turn on and the Worker then reads, none of it required: OAuth sign-in for hosted agents
 * and sign-in with the team's OpenID Connect provider (docs/oauth.md). `init` writes them commented out;
 * `--check` does not call them unknown.
 */
export const OPTIONAL_VARS: readonly VarRequirement[] = [
  {
    name: "SHELF_OAUTH_ISSUER",
    teamDefault: "https://skills.example.com",
    why: "the shelf's public origin: turns OAuth on for a private shelf (with OAUTH_KV)",
  },
  // Sign-in with the team's identity provider: all of these (and the client secret) with one admission rule turn it on.
  { name: "SHELF_OIDC_ISSUER", teamDefault: "https://accounts.google.com", why: "the OpenID Connect provider people sign in with (docs/oauth.md)" },
  { name: "SHELF_OIDC_CLIENT_ID", teamDefault: "<client id from the provider>", why: "the shelf's client at the provider" },
  { name: "SHELF_OIDC_ALLOWED_DOMAINS", teamDefault: "example.com", why: "comma-separated e-mail domains whose verified addresses may sign in" },
  {
    name: "SHELF_OIDC_REQUIRED_CLAIM",
    teamDefault: "groups=skills-readers",
    why: "claim=value the ID token must carry (a group), instead of or besides the domains",
  },
  { name: "SHELF_OIDC_NAME", teamDefault: "Google", why: "what the sign-in button calls the provider" },
  // Webhooks after each publish, rollback and advisory change (docs/teams.md, "Webhooks").
  {
    name: "SHELF_WEBHOOK_URLS",
    teamDefault: "https://ci.example.com/skillshelf slack:https://hooks.slack.com/services/T000/B000/XXXX",
    why: "up to 5 receivers; slack: sends the Slack-compatible text (a Slack URL is a credential: set it as a secret instead)",
  },
  // A public shelf's Cache API use (docs/deploy.md, "Caches"); a private shelf never uses it, so init does not write it.
  { name: "SHELF_EDGE_CACHE", teamDefault: "off", why: '"off" keeps a public shelf\'s generated documents out of the Cache API' },
];

export const OPTIONAL_BINDINGS: readonly BindingRequirement[] = [
  { binding: "OAUTH_KV", kind: "kv_namespaces", why: "OAuth clients, grants and tokens (its own namespace, not SHELF_KV)" },
];
/** The flag OAuth's client ID metadata documents need (the library fetches them only from public hosts with it). */
export const OAUTH_COMPATIBILITY_FLAG = "global_fetch_strictly_public";

/** A storage id that means "not created yet" (what init writes until the team creates its KV namespace). */
export const PLACEHOLDER_KV_ID = "00000000000000000000000000000000";
