// Exit code 3 means "a pointer move lost a race to another publisher; rerun". The admin API's
// 409s are read from src/worker/admin/store.ts itself, so a new or changed refusal there cannot
// silently turn a lost race into exit 1 (or another gc, say, into exit 3).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { POINTER_MOVED, PublishError } from "../../src/core/publish/client.ts";
import { CliError } from "../../src/cli/lib/cli.ts";
import { adminCall, exitCodeFor, LOST_RACE_EXIT } from "../../src/cli/lib/publish.ts";

/** Every `new AdminError(409, <code>, …)` in the store: its code and whether it names `current`. */
function storeConflicts(): { code: string; pointerRace: boolean }[] {
  const source = readFileSync("src/worker/admin/store.ts", "utf8");
  const found: { code: string; pointerRace: boolean }[] = [];
  for (const m of source.matchAll(/new AdminError\(409,\s*("[a-z_]+"|POINTER_MOVED),\s*(`[^`]*`|"[^"]*")(,\s*\{\s*current\b)?/g)) {
    found.push({ code: m[1] === "POINTER_MOVED" ? POINTER_MOVED : m[1]!.slice(1, -1), pointerRace: m[3] !== undefined });
  }
  return found;
}

describe("exit codes of admin refusals", () => {
  it("maps exactly the store's pointer compare-and-swap conflicts to 3", () => {
    const conflicts = storeConflicts();
    expect(conflicts.filter((c) => c.pointerRace)).toHaveLength(2);
    expect(conflicts.filter((c) => !c.pointerRace).length).toBeGreaterThanOrEqual(3);
    for (const c of conflicts) {
      expect(c.code === POINTER_MOVED, JSON.stringify(c)).toBe(c.pointerRace);
      expect(exitCodeFor(new PublishError(409, c.code, "POST /pointer: 409 refused")), c.code).toBe(c.pointerRace ? LOST_RACE_EXIT : 1);
    }
  });
  it("gives 1 for other statuses, whatever the code says", async () => {
    expect(exitCodeFor(new PublishError(401, POINTER_MOVED, "GET /history: 401 unauthorized"))).toBe(1);
    const error = await adminCall(() => Promise.reject(new PublishError(409, "conflict", "POST /gc: 409 another gc is running; retry when it has finished"))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(1);
  });
});
