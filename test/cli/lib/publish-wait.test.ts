// `publish --wait` and `rollback --wait` on a private shelf: they read /v1/shelf with a read token
// (SKILLSHELF_READ_TOKEN, or the variable --read-token-env names), never the publish token, and when
// the shelf refuses them they say which variable to set, and that the pointer did move.
import { describe, expect, it } from "vitest";
import { SHELF_WIDE_LISTINGS } from "../../../src/core/api/listings.ts";
import { readTokenFrom, renderListings, waitUntilServed } from "../../../src/cli/lib/publish.ts";
import type { CliContext } from "../../../src/cli/lib/cli.ts";

const GENERATION = "a".repeat(64);

function context(env: Record<string, string> = {}): CliContext & { err: string[] } {
  const err: string[] = [];
  return { args: [], stdout: () => {}, stderr: (t) => void err.push(t), interactive: false, env, err };
}

/** A private shelf: /v1/shelf answers only a request carrying `token`. */
function privateShelf(token: string) {
  const seen: Array<string | null> = [];
  const fetch = async (request: Request) => {
    seen.push(request.headers.get("Authorization"));
    if (request.headers.get("Authorization") !== `Bearer ${token}`) return new Response("{}", { status: 401 });
    return new Response(JSON.stringify({ generation: GENERATION }), { headers: { "Skillshelf-Generation": GENERATION } });
  };
  return { fetch, seen };
}

const io = (fetch: (r: Request) => Promise<Response>) => ({ fetch, sleep: async () => {}, clock: () => 0 });

describe("--wait on a private shelf", () => {
  it("reads with the read token from SKILLSHELF_READ_TOKEN", async () => {
    const ctx = context({ SKILLSHELF_READ_TOKEN: "sk_read_1" });
    const shelf = privateShelf("sk_read_1");
    await waitUntilServed(ctx, "http://shelf.test", GENERATION, 5, io(shelf.fetch), readTokenFrom(ctx, undefined));
    expect(shelf.seen).toEqual(["Bearer sk_read_1"]);
    expect(ctx.err.join("")).toMatch(/serves aaaaaaaaaaaa…/);
  });

  it("reads with the variable --read-token-env names", async () => {
    const ctx = context({ TEAM_READ: "sk_read_2" });
    const shelf = privateShelf("sk_read_2");
    await waitUntilServed(ctx, "http://shelf.test", GENERATION, 5, io(shelf.fetch), readTokenFrom(ctx, "TEAM_READ"));
    expect(shelf.seen).toEqual(["Bearer sk_read_2"]);
  });

  it("says which variable to set when it has no read token, and that the pointer moved", async () => {
    const ctx = context();
    const shelf = privateShelf("sk_read_1");
    await expect(waitUntilServed(ctx, "http://shelf.test", GENERATION, 5, io(shelf.fetch), readTokenFrom(ctx, undefined))).rejects.toThrow(
      /the shelf is private; set SKILLSHELF_READ_TOKEN to a read token \(or name another variable with --read-token-env\).*The pointer did move/,
    );
    expect(shelf.seen).toEqual([null]);
  });

  it("names the variable whose token the shelf refused", async () => {
    const ctx = context({ SKILLSHELF_READ_TOKEN: "sk_wrong" });
    const shelf = privateShelf("sk_read_1");
    await expect(waitUntilServed(ctx, "http://shelf.test", GENERATION, 5, io(shelf.fetch), readTokenFrom(ctx, undefined))).rejects.toThrow(
      /refused the read token in SKILLSHELF_READ_TOKEN \(401\); the pointer did move/,
    );
  });
});

describe("after --wait: the shelf-wide listings", () => {
  it("asks for each once with the read token, skips a family the shelf does not serve, and names a refusal without failing", async () => {
    const ctx = context({ SKILLSHELF_READ_TOKEN: "sk_read_1" });
    const asked: Array<[string, string | null]> = [];
    const fetch = async (request: Request) => {
      const { pathname, search } = new URL(request.url);
      const path = pathname + search;
      asked.push([path, request.headers.get("Authorization")]);
      if (path === "/.well-known/skills/index.json") return new Response("{}", { status: 404 });
      if (path === "/v1/trust") return new Response("error code: 1102", { status: 503 });
      if (path === "/ui/") throw new TypeError("fetch failed");
      return new Response("{}");
    };
    await renderListings(ctx, "http://shelf.test", readTokenFrom(ctx, undefined), { fetch, clock: () => 0 });
    expect(asked).toEqual(SHELF_WIDE_LISTINGS.map((path) => [path, "Bearer sk_read_1"]));
    const err = ctx.err.join("");
    expect(err).toContain(`http://shelf.test built ${SHELF_WIDE_LISTINGS.length - 3} shelf-wide listing(s) of the new generation`);
    expect(err).toMatch(/not built now: \/v1\/trust \(503\), \/ui\/ \(fetch failed\); the first reader of each builds it/);
    expect(err).not.toContain("/.well-known/skills/index.json");
  });

  it("sends no Authorization without a read token (a public shelf)", async () => {
    const ctx = context();
    const seen: Array<string | null> = [];
    await renderListings(ctx, "http://shelf.test", readTokenFrom(ctx, undefined), {
      fetch: async (request) => {
        seen.push(request.headers.get("Authorization"));
        return new Response("{}");
      },
    });
    expect(seen).toEqual(SHELF_WIDE_LISTINGS.map(() => null));
    expect(ctx.err.join("")).not.toContain("not built now");
  });
});
