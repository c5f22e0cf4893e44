// The shelf-wide listings: the routes whose answer, asked without a query string (or with one of
// the few their route names), lists the whole generation, and which a Worker therefore keeps in R2
// for every later cold isolate once one isolate built it (src/worker/read/rendered.ts,
// docs/deploy.md "Caches"). `skillshelf publish --wait` and `rollback --wait` ask for each once
// the Worker serves the new generation, so the first isolate to build one is theirs, not a reader's. test/worker/routes/rendered.test.ts holds the Worker to it.

/**
 * The catalog's other formats, as a query string must spell them exactly to be kept: a fixed
 * set, so no caller can make the Worker write one object per query.
 */
export const CATALOG_KEPT_QUERIES = ["format=markdown", "format=json"] as const;

/** The paths of the shelf-wide listings, in the order the CLI asks for them (clients' first reads first). */
export const SHELF_WIDE_LISTINGS = [
  "/.well-known/agent-skills/index.json",
  "/.well-known/skills/index.json",
  "/skills/index.json",
  "/v1/shelf",
  "/v1/skills",
  "/v1/catalog",
  ...CATALOG_KEPT_QUERIES.map((query) => `/v1/catalog?${query}` as const),
  "/v1/fast-path",
  "/v1/trust",
  "/api/v1/skills",
  "/.claude-plugin/marketplace.json",
  "/ui/",
] as const;
