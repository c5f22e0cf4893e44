// Everything a Worker isolate keeps between requests, forgotten at once: the next request is a cold
// isolate's. One list, so a new module-level cache is added here and both users pick it up: the
// shared runtime's per-file setup (fresh-file.setup.ts) and the storage-ops counting test.
import { resetReadTokenCaches } from "../../src/worker/auth/read-tokens.ts";
import { resetComputedCache } from "../../src/worker/read/respond.ts";
import { resetSearchIndexCache } from "../../src/worker/shelf/search.ts";
import { resetBodyCache } from "../../src/worker/shelf/service.ts";
import { resetStorageMemory } from "../../src/worker/storage/index.ts";
import { resetSkillMdFacts } from "../../src/worker/views/mcp/skill-md.ts";

/** Forgets the isolate's caches: generations and documents, computed answers, bodies, the search index, SKILL.md facts, read-token lookups. */
export function forgetIsolateMemory(): void {
  resetStorageMemory();
  resetComputedCache();
  resetBodyCache();
  resetSearchIndexCache();
  resetSkillMdFacts();
  resetReadTokenCaches();
}
