// Exit code 3 means "a pointer move lost a race to another publisher; rerun". Every refusal the
// admin API's modules (src/worker/admin/*.ts) construct is read from their source and its status
// looked up in the contract's error codes, so a new or changed 409 there cannot silently turn a
// lost race into exit 1 (or another gc, say, into exit 3).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PublishError } from "../../src/core/publish/client.ts";
import { ADMIN_ERRORS, POINTER_MOVED, type AdminErrorCode } from "../../src/core/publish/contract.ts";
import { CliError } from "../../src/cli/lib/cli.ts";
import { adminCall, exitCodeFor, LOST_RACE_EXIT } from "../../src/cli/lib/publish.ts";

const ADMIN_DIR = "src/worker/admin";

/** Every `adminError(<code>, <message>[, { current …}])` in the admin modules. */
function adminRefusals(): { file: string; code: AdminErrorCode; pointerRace: boolean }[] {
  const found: { file: string; code: AdminErrorCode; pointerRace: boolean }[] = [];
  for (const file of readdirSync(ADMIN_DIR).filter((f) => f.endsWith(".ts"))) {
    // Code only: a doc comment's example is not a refusal.
    const source = readFileSync(path.join(ADMIN_DIR, file), "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/^\s*\/\/.*$/gm, "");
    const constructed = source.match(/(?<!function )\badminError\(/g)?.length ?? 0;
    const matches = [
      ...source.matchAll(
        /(?<!function )\badminError\(\s*("[a-z_]+"|POINTER_MOVED|refusal\.code|read\.code|document\.code|problem\.code)\s*,\s*(?:`[^`]*`|"[^"]*"|[\w.]+)(\s*,\s*\{\s*current\b)?/g,
      ),
    ];
    // A code spelt any other way would escape this check.
    expect(matches.length, `${file}: every adminError is built with a literal code`).toBe(constructed);
    for (const m of matches) {
      // A refusal of the request's shape is typed "bad_request" | "invalid_request" | "invalid_advisories"
      // (contract.ts), one of unreadable JSON text "malformed_json" | "invalid_text" | "too_deep" (json-text.ts), a
      // document's "invalid_document" | "invalid_skill" (verify.ts's DocumentProblem): never a 409.
      const typed: Record<string, AdminErrorCode> = {
        POINTER_MOVED,
        "refusal.code": "bad_request",
        "read.code": "malformed_json",
        "document.code": "invalid_document",
        "problem.code": "invalid_document",
      };
      const code = (typed[m[1]!] ?? m[1]!.slice(1, -1)) as AdminErrorCode;
      expect(Object.keys(ADMIN_ERRORS), `${file}: ${code}`).toContain(code);
      found.push({ file, code, pointerRace: m[2] !== undefined });
    }
  }
  return found;
}

describe("exit codes of admin refusals", () => {
  it("maps exactly the pointer compare-and-swap conflicts to 3", () => {
    const conflicts = adminRefusals().filter((c) => ADMIN_ERRORS[c.code] === 409);
    expect(conflicts.filter((c) => c.pointerRace)).toHaveLength(2);
    expect(conflicts.filter((c) => !c.pointerRace).length).toBeGreaterThanOrEqual(3);
    for (const c of conflicts) {
      expect(c.code === POINTER_MOVED, JSON.stringify(c)).toBe(c.pointerRace);
      expect(exitCodeFor(new PublishError(409, c.code, "POST /pointer: 409 refused")), c.code).toBe(c.pointerRace ? LOST_RACE_EXIT : 1);
    }
    // Every 409 code the contract names: only pointer_moved means "rerun".
    for (const [code, status] of Object.entries(ADMIN_ERRORS)) {
      if (status === 409)
        expect(exitCodeFor(new PublishError(409, code, "POST /rollback: 409 refused")), code).toBe(code === POINTER_MOVED ? LOST_RACE_EXIT : 1);
    }
  });
  it("gives 1 for other statuses, whatever the code says", async () => {
    expect(exitCodeFor(new PublishError(401, POINTER_MOVED, "GET /history: 401 unauthorized"))).toBe(1);
    const error = await adminCall(() =>
      Promise.reject(new PublishError(409, "conflict", "POST /gc: 409 another gc is running; retry when it has finished")),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(1);
  });
});
