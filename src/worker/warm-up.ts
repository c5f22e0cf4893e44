// Work every cold request would otherwise do first, done once while the module evaluates: the
// live documents' schemas parse a sample each (zod builds a schema's parser on its first parse,
// and V8 compiles each function on its first call), the router matches the common paths, and the
// MCP server pool gets its first servers. The global scope runs at start-up, which has its own
// limit (1 s; docs/deploy.md, "Start-up and size") and is not any request's CPU time, so a cold
// isolate's first request no longer pays for it (docs/benchmarks.md, "Warm-up at start-up").
// Nothing here reads storage or keeps a request's state: the samples are parsed and dropped, the
// router keeps nothing of a match, and a pooled server holds no request state (views/mcp/server.ts).
import type { Hono } from "hono";
import { ADVISORIES_SCHEMA, AdvisoriesRecordSchema, POINTER_SCHEMA, PointerSchema } from "../core/generation/manifest.ts";
import { prebuildMcpServers } from "./views/mcp/server.ts";

const SAMPLE_ID = "0".repeat(64);
const SAMPLE_AT = "2026-01-01T00:00:00.000Z";
/** Paths whose routing every cold request shares the code of (the static layout, well-known, /v1, /mcp). */
const PATHS = ["/skills/a/SKILL.md", "/.well-known/agent-skills/index.json", "/v1/skills/a", "/mcp"] as const;

/**
 * Runs the warm-up on `app`; what each sample parse gave (all true unless a schema changed under
 * its sample: test/worker/warm-up.test.ts checks, so the warm-up keeps exercising the success path).
 */
export function warmUp(app: Pick<Hono, "router">): boolean[] {
  const parsed = [
    PointerSchema.safeParse({
      schema: POINTER_SCHEMA,
      generation: SAMPLE_ID,
      seq: 1,
      published_at: SAMPLE_AT,
      history: [{ seq: 1, generation: SAMPLE_ID, action: "publish", at: SAMPLE_AT }],
    }).success,
    AdvisoriesRecordSchema.safeParse({ schema: ADVISORIES_SCHEMA, advisories: [], seq: 1, updated_at: SAMPLE_AT }).success,
  ];
  for (const path of PATHS) app.router.match(path === "/mcp" ? "POST" : "GET", path);
  prebuildMcpServers();
  return parsed;
}
