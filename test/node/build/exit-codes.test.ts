// Exit code 3 means "a pointer move lost a race to another publisher; rerun". The admin API's
// 409s are read from src/worker/admin/store.ts itself, so rewording a refusal there cannot
// silently turn a lost race into exit 1 (or another gc, say, into exit 3).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PublishError } from "../../../src/core/publish.ts";
import { CliError } from "../../../scripts/lib/cli.ts";
import { adminCall, exitCodeFor, LOST_RACE_EXIT } from "../../../scripts/lib/publish.ts";

/** Every `new AdminError(409, …)` in the store: its message (template parts as "x") and whether it names `current`. */
function storeConflicts(): { message: string; pointerRace: boolean }[] {
  const source = readFileSync("src/worker/admin/store.ts", "utf8");
  const found: { message: string; pointerRace: boolean }[] = [];
  for (const m of source.matchAll(/new AdminError\(409,\s*"[a-z_]+",\s*(`[^`]*`|"[^"]*")(,\s*\{\s*current\b)?/g)) {
    found.push({ message: m[1]!.slice(1, -1).replace(/\$\{[^}]*\}/g, "x"), pointerRace: m[2] !== undefined });
  }
  return found;
}

describe("exit codes of admin refusals", () => {
  it("maps exactly the store's pointer compare-and-swap conflicts to 3", () => {
    const conflicts = storeConflicts();
    expect(conflicts.filter((c) => c.pointerRace)).toHaveLength(2);
    expect(conflicts.filter((c) => !c.pointerRace).length).toBeGreaterThanOrEqual(3);
    for (const c of conflicts) {
      const error = new PublishError(409, "conflict", `POST /pointer: 409 ${c.message}`);
      expect(exitCodeFor(error), c.message).toBe(c.pointerRace ? LOST_RACE_EXIT : 1);
    }
  });
  it("gives 1 for other statuses, whatever the message says", async () => {
    expect(exitCodeFor(new PublishError(401, "unauthorized", "GET /history: 401 another publish won"))).toBe(1);
    const error = await adminCall(() => Promise.reject(new PublishError(409, "conflict", "POST /gc: 409 another gc is running; retry when it has finished"))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(1);
  });
});
