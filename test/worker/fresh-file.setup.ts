// Runs before every file of the shared-runtime workerd project (vitest.config.ts, `isolate: false`):
// each file starts from empty R2 and KV and cold Worker caches, as it would in a runtime of its own,
// so no file sees what another published (a version index, a pointer's seq) whatever the order.
import { reset } from "cloudflare:test";
import { beforeAll } from "vitest";
import { forgetIsolateMemory } from "./cold-isolate.ts";

beforeAll(async () => {
  await reset();
  forgetIsolateMemory();
});
