// docs/mcp.md's curl examples, replayed against the Worker in workerd: one per protocol era the
// endpoint speaks (each answers a JSON-RPC result, 2026-07-28 as JSON and 2025 as an event
// stream), and the bare POST the docs say gets 406. An example that drifts from what /mcp
// answers fails here.
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import mcpDoc from "../../../docs/mcp.md?raw";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { publishFixtureShelf } from "../fixture-shelf.ts";
import { appFetch, BASE } from "./helpers.ts";

interface CurlExample {
  text: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** The words of one shell command: bare words and single-quoted strings, `\` line continuations joined. */
function shellWords(command: string): string[] {
  const words: string[] = [];
  for (const m of command.replace(/\\\n/g, " ").matchAll(/'([^']*)'|(\S+)/g)) words.push(m[1] ?? m[2]!);
  return words;
}

/** Every curl command in the ```sh blocks of the doc's "Trying /mcp with curl" section. */
function curlExamples(doc: string): CurlExample[] {
  const start = doc.indexOf("\n## Trying /mcp with curl");
  if (start < 0) return [];
  const end = doc.indexOf("\n## ", start + 1);
  const section = doc.slice(start, end < 0 ? undefined : end);
  const examples: CurlExample[] = [];
  for (const block of section.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const command of block[1]!.split(/\n(?=curl )/)) {
      const words = shellWords(command.replace(/^#.*$/gm, ""));
      if (words[0] !== "curl") continue;
      const example: CurlExample = { text: command, url: "", headers: {}, body: undefined };
      for (let i = 1; i < words.length; i++) {
        const word = words[i]!;
        if (word === "-H") {
          const header = words[++i]!;
          example.headers[header.slice(0, header.indexOf(":")).trim()] = header.slice(header.indexOf(":") + 1).trim();
        } else if (word === "-d" || word === "--data") example.body = words[++i];
        else if (/^https?:\/\//.test(word)) example.url = word;
      }
      examples.push(example);
    }
  }
  return examples;
}

// Sends an example as curl would: curl adds "Accept: */*" unless told otherwise.
async function replay(example: CurlExample): Promise<Response> {
  const url = new URL(example.url);
  const headers = { Accept: "*/*", ...example.headers };
  return appFetch()(`${BASE}${url.pathname}${url.search}`, { method: example.body === undefined ? "GET" : "POST", headers, body: example.body });
}

/** The JSON-RPC message of an answer: the body, or the data line of an event stream. */
async function message(res: Response): Promise<{ result?: Record<string, unknown>; error?: unknown }> {
  const text = await res.text();
  if (!(res.headers.get("Content-Type") ?? "").includes("text/event-stream")) return JSON.parse(text) as { result?: Record<string, unknown> };
  const data = text.split("\n").find((line) => line.startsWith("data: "));
  return JSON.parse(data!.slice("data: ".length)) as { result?: Record<string, unknown> };
}

const examples = curlExamples(mcpDoc);

beforeEach(async () => {
  resetStorageMemory();
  // Two skills, so the single-skill fast path does not take the body tools away.
  await publishFixtureShelf(env, [
    { name: "code-review", description: "Reviews a change for correctness, tests and risk." },
    { name: "commit-messages", description: "Writes commit messages that say why." },
  ]);
});

describe("docs/mcp.md's curl examples", () => {
  it("has one for each era and the bare POST", () => {
    const versions = examples.map((e) => e.headers["Mcp-Protocol-Version"] ?? (e.headers.Accept ? "?" : "bare"));
    expect(versions).toContain("2026-07-28");
    expect(versions).toContain("2025-11-25");
    expect(versions).toContain("bare");
  });

  const answered = examples.filter((e) => e.headers.Accept !== undefined);
  it.each(answered.map((e) => [e.headers["Mcp-Protocol-Version"] ?? "no version header", JSON.parse(e.body ?? "{}").method as string, e] as const))(
    "%s %s answers a JSON-RPC result",
    async (_version, _method, example) => {
      expect(example.url).toMatch(/^http:\/\/127\.0\.0\.1:8787\/mcp/);
      const res = await replay(example);
      expect(res.status, await res.clone().text()).toBe(200);
      const answer = await message(res);
      expect(answer.error).toBeUndefined();
      expect(answer.result).toBeDefined();
    },
  );

  it("the bare POST (no Accept) gets 406, as the docs say", async () => {
    const bare = examples.filter((e) => e.headers.Accept === undefined);
    expect(bare.length).toBeGreaterThan(0);
    for (const example of bare) {
      const res = await replay(example);
      expect(res.status).toBe(406);
      // The docs show the answer's start.
      const shown = /# → 406 (\{.*)…/.exec(example.text)?.[1];
      expect(await res.text()).toContain(shown);
    }
    expect(mcpDoc).toMatch(/406/);
  });
});
