// skillshelf rollback to a generation gc has collected (issue 11 item 10): the CLI says gc
// collected it and how to bring it back (rebuild, then publish to the same URL), exit 1, instead
// of "upload its manifest first". The Worker's answer is stubbed here with the contract's code;
// test/worker/admin/publish.test.ts checks the Worker really answers it.
import { afterEach, describe, expect, it, vi } from "vitest";
import { run } from "../../../src/cli/commands/rollback.ts";
import { CliError } from "../../../src/cli/lib/cli.ts";
import { ADMIN_ERRORS } from "../../../src/core/publish/contract.ts";

const CURRENT = "a".repeat(64);
const COLLECTED = "b".repeat(64);

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("skillshelf rollback", () => {
  it("to a generation gc collected says so and how to republish it, exit 1", async () => {
    const seen: string[] = [];
    vi.stubGlobal("fetch", async (request: Request) => {
      seen.push(`${request.method} ${new URL(request.url).pathname}`);
      if (request.method === "GET") return json(200, { pointer: { schema: "skillshelf.pointer/1", generation: CURRENT, seq: 3, published_at: new Date().toISOString(), history: [] } });
      return json(ADMIN_ERRORS.generation_collected, { error: "generation_collected", message: `generation ${COLLECTED} was collected by gc` });
    });
    let stdout = "";
    const ctx = {
      args: ["--url", "https://shelf.example.test", COLLECTED],
      stdout: (text: string) => void (stdout += text),
      stderr: () => {},
      interactive: false,
      env: { SKILLSHELF_PUBLISH_TOKEN: "sk_test" },
    };
    const error = await run(ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(1);
    const message = (error as CliError).message;
    expect(message).toMatch(new RegExp(`^generation ${COLLECTED} was collected by gc`));
    expect(message).toContain("npx skillshelf build <shelf-dir> --out <build-dir>");
    expect(message).toContain("npx skillshelf publish --url https://shelf.example.test --dir <build-dir>");
    expect(message).not.toMatch(/upload its manifest/);
    expect(stdout).toBe("");
    expect(seen).toEqual(["GET /admin/v1/pointer", "POST /admin/v1/rollback"]);
  });
});
