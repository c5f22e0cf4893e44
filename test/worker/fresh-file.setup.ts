// Runs before every file of the shared-runtime workerd project (vitest.config.ts, `isolate: false`):
// each file starts from empty R2 and KV and cold Worker caches, as it would in a runtime of its own,
// so no file sees what another published (a version index, a pointer's seq) whatever the order.
import { reset } from "cloudflare:test";
import { beforeAll } from "vitest";
import { resetComputedCache } from "../../src/worker/read/respond.ts";
import { resetSearchIndexCache } from "../../src/worker/shelf/search.ts";
import { resetBodyCache } from "../../src/worker/shelf/service.ts";
import { resetStorageMemory } from "../../src/worker/storage/index.ts";
import { resetSkillMdFacts } from "../../src/worker/views/mcp/skill-md.ts";

beforeAll(async () => {
  await reset();
  resetStorageMemory();
  resetComputedCache();
  resetBodyCache();
  resetSearchIndexCache();
  resetSkillMdFacts();
});
