// Starts the shelf for interop tests exactly as `npm start` does (scripts/start.ts: build the
// shelf folder, `wrangler dev` on loopback with local R2 and KV, publish through the admin API),
// on a free port, over a given state folder, with extra vars; and stops it again. start.ts kills
// wrangler's whole process group on stop() and on process exit.
import path from "node:path";
import { startShelfOnFreePort, type RunningShelf } from "../../scripts/start.ts";

export type { RunningShelf };

const running = new Set<RunningShelf>();

/** Stops every shelf this module started (best effort, bounded by start.ts's own timeouts). */
export async function stopAll(): Promise<void> {
  await Promise.allSettled([...running].map((shelf) => shelf.stop()));
  running.clear();
}

/**
 * Builds and publishes `shelfDir` into a Worker persisted under `stateDir`, started with `vars`.
 * @example const shelf = await startShelf(dir, state, { SHELF_DISCOVERY: "v0.1" }); try { … } finally { await shelf.stop() }
 */
export async function startShelf(shelfDir: string, stateDir: string, vars: Record<string, string> = {}): Promise<RunningShelf> {
  const shelf = await startShelfOnFreePort({ shelfDir, persistTo: stateDir, buildDir: path.join(stateDir, "build"), vars });
  running.add(shelf);
  const stop = shelf.stop;
  return {
    ...shelf,
    stop: async () => {
      running.delete(shelf);
      await stop();
    },
  };
}
