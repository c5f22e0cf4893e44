// Hostile input through every command (issue 11): a self-referencing alias and a lone surrogate
// in SKILL.md, an alias bomb in a record file, are each a clear error and exit 1, never exit 70;
// `validate` reports everything `build` refuses, in the build's words, because both run one check.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildInventory } from "../../src/core/skill/inventory.ts";
import { runCli } from "./run-cli.ts";
import { type Answer, fakeShelf } from "./lib/fake-shelf.ts";
import { runInProcess } from "./run-in-process.ts";

const root = mkdtempSync(path.join(tmpdir(), "skillshelf-hostile-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const skillMd = (name: string, extra = "") =>
  `---\nname: ${name}\ndescription: Does ${name} things for the hostile-input tests.\n${extra}---\n# ${name}\n\nSteps.\n`;

/** A shelf folder with the given skills (folder → relative path → content) and record files. */
function shelf(name: string, skills: Record<string, Record<string, string | Uint8Array>>, records: Record<string, string> = {}): string {
  const dir = path.join(root, name);
  mkdirSync(path.join(dir, "skills"), { recursive: true });
  for (const [skill, files] of Object.entries(skills)) {
    for (const [rel, content] of Object.entries({ "SKILL.md": skillMd(skill), ...files })) {
      const file = path.join(dir, "skills", skill, rel);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, content);
    }
  }
  for (const [file, text] of Object.entries(records)) writeFileSync(path.join(dir, file), text);
  return dir;
}

/** A billion-laughs document: ten levels of ten aliases each. */
function aliasBomb(listKey: string): string {
  const lines = ["a0: &a0 [x,x,x,x,x,x,x,x,x,x]"];
  for (let i = 1; i < 10; i++)
    lines.push(
      `a${i}: &a${i} [${Array(10)
        .fill(`*a${i - 1}`)
        .join(",")}]`,
    );
  return `${lines.join("\n")}\n${listKey}: []\n`;
}

const selfAlias = shelf("self-alias", { demo: { "SKILL.md": skillMd("demo", "x: &x [*x]\n") } });
const loneSurrogate = shelf("lone-surrogate", { demo: { "SKILL.md": skillMd("demo").replace(/description: .*\n/, 'description: "\\ud800 lone"\n') } });
const bomb = shelf("alias-bomb", { demo: {} }, { "advisories.yaml": aliasBomb("advisories") });
const validationsBomb = shelf("validations-bomb", { demo: {} }, { "validations.yaml": aliasBomb("validations") });

/** Every command that reads a skill or a shelf, on `dir` (a shelf whose one skill is `demo`). */
function everyCommand(dir: string): string[][] {
  const skill = path.join(dir, "skills", "demo");
  return [
    ["validate", dir],
    ["validate", skill],
    ["build", dir, "--out", path.join(root, "out", path.basename(dir))],
    ["inspect", skill, "--json"],
    ["trust", dir],
    ["catalog", dir],
    ["outline", skill],
    ["section", skill, "body"],
    ["attest", dir, "demo", "--check"],
  ];
}

describe("hostile SKILL.md: a clear error and exit 1 in every command", () => {
  for (const [label, dir, problem] of [
    ["a self-referencing alias", selfAlias, /x\[0\] contains itself \(an alias inside its own anchor\)/],
    ["a lone surrogate escape", loneSurrogate, /the string at description holds a lone surrogate escape/],
  ] as const) {
    it(label, async () => {
      for (const args of everyCommand(dir)) {
        const r = await runInProcess(args);
        expect(r.internal, `${args[0]}: ${r.stderr}`).toBeUndefined();
        expect(r.code, `${args.join(" ")}\n${r.stdout}${r.stderr}`).toBe(1);
        // attest names no YAML; it points at validate, which does.
        expect(`${r.stdout}${r.stderr}`, args.join(" ")).toMatch(args[0] === "attest" ? /the skill is invalid .* run npx skillshelf validate/ : problem);
      }
      // select treats an invalid skill as missing (fail closed), saying why, and exits 0.
      const selected = await runInProcess(["select", dir, "--names", "demo"]);
      expect(selected.code).toBe(0);
      expect(selected.stdout).toMatch(/missing: demo/);
      expect(selected.stdout).toMatch(problem);
    });
  }

  // A child process: the real bin's exit status and stderr (no "internal error", no stack) are under test.
  it("the real bin: build, which crashed on both, exits 1 without a stack trace", () => {
    for (const dir of [selfAlias, loneSurrogate]) {
      for (const args of [everyCommand(dir)[2]!]) {
        const r = runCli(args);
        expect(r.code, `${args.join(" ")}\n${r.stderr}`).toBe(1);
        expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
      }
    }
  });
});

describe("an alias bomb in a record file: a clear error and exit 1 in every command that reads it", () => {
  it("advisories.yaml", async () => {
    const commands = [
      ["validate", bomb],
      ["build", bomb, "--out", path.join(root, "out", "bomb")],
      ["trust", bomb],
      ["select", bomb, "--names", "demo"],
      ["advise", bomb, "--url", "http://127.0.0.1:9"],
    ];
    for (const args of commands) {
      const r = await runInProcess(args);
      expect(r.internal, `${args[0]}: ${r.stderr}`).toBeUndefined();
      expect(r.code, `${args.join(" ")}\n${r.stdout}${r.stderr}`).toBe(1);
      expect(`${r.stdout}${r.stderr}`, args[0]).toMatch(/advisories\.yaml: Excessive alias count .*refusing to expand aliases/);
    }
    // A child process: the real bin's exit status and stderr are under test.
    const real = runCli(["build", bomb, "--out", path.join(root, "out", "bomb-bin")]);
    expect(real.code, real.stderr).toBe(1);
    expect(real.stderr).not.toMatch(/internal error|\n\s+at /);
  });

  it("validations.yaml", async () => {
    for (const args of [
      ["validate", validationsBomb],
      ["build", validationsBomb, "--out", path.join(root, "out", "vbomb")],
      ["trust", validationsBomb],
      ["attest", validationsBomb, "demo", "--check"],
    ]) {
      const r = await runInProcess(args);
      expect(r.internal, `${args[0]}: ${r.stderr}`).toBeUndefined();
      expect(r.code, `${args.join(" ")}\n${r.stdout}${r.stderr}`).toBe(1);
      expect(`${r.stdout}${r.stderr}`, args[0]).toMatch(/validations\.yaml.*Excessive alias count/);
    }
  });
});

describe("validate reports everything build refuses, in the same words (issue 11)", () => {
  const many: Record<string, string> = {};
  for (let i = 0; i < 512; i++) many[`references/f${i}.md`] = "x\n";
  const cases: Record<string, Record<string, string | Uint8Array>> = {
    "big-file": { "assets/big.bin": new Uint8Array(17 * 1024 * 1024) },
    "too-many": many,
    "case-twins": { "references/Guide.md": "a\n", "references/guide.md": "b\n" },
    "nfc-nfd-twins": { "references/caf\u00e9.md": "a\n", "references/cafe\u0301.md": "b\n" },
    "root-index": { "index.json": "{}\n" },
    "root-proto": { ["__proto__"]: "x\n" },
    "root-number": { "7": "x\n" },
    "long-path": { [`references/${"n".repeat(120)}.md`]: "x\n" },
    backslash: { "references/a\\b.md": "x\n" },
    control: { "references/bell\u0007.md": "x\n" },
    "self-alias": { "SKILL.md": skillMd("self-alias", "x: &x [*x]\n") },
    "lone-surrogate": { "SKILL.md": skillMd("lone-surrogate").replace(/description: .*\n/, 'description: "\\ud800 lone"\n') },
    "binary-tag": { "SKILL.md": skillMd("binary-tag", "metadata: {logo: !!binary aGVsbG8=}\n") },
    "deep-frontmatter": { "SKILL.md": skillMd("deep-frontmatter", `metadata: {x: ${"[".repeat(80)}${"]".repeat(80)}}\n`) },
  };

  for (const [name, files] of Object.entries(cases)) {
    it(name, async () => {
      const dir = shelf(`agree-${name}`, { [name]: files, fine: {} });
      const built = await runInProcess(["build", dir, "--out", path.join(root, "out", `agree-${name}`), "--json"]);
      const validated = await runInProcess(["validate", dir, "--json"]);
      expect(built.internal ?? validated.internal).toBeUndefined();
      expect(built.code, built.stdout).toBe(1);
      expect(validated.code, validated.stdout).toBe(1);
      const refused = (JSON.parse(built.stdout) as { problems: { skill: string; field: string; message: string }[] }).problems;
      expect(refused.length).toBeGreaterThan(0);
      const report = JSON.parse(validated.stdout) as {
        skills: { name: string; ok: boolean; problems: { field: string; severity: string; message: string }[] }[];
      };
      const reported = report.skills.flatMap((s) =>
        s.problems.filter((p) => p.severity === "error").map((p) => ({ skill: s.name, field: p.field, message: p.message })),
      );
      expect(reported).toEqual(refused);
      expect(report.skills.find((s) => s.name === "fine")?.ok).toBe(true);
    });
  }

  it("a blocked skill and a malformed record file", async () => {
    const { tree_hash } = await buildInventory([{ path: "SKILL.md", bytes: new TextEncoder().encode(skillMd("fine")) }]);
    const dir = shelf(
      "agree-records",
      { fine: {} },
      {
        "advisories.yaml": `advisories:\n- name: fine\n  source: anywhere\n  official_intent: Helps.\n  hidden_issue: Steals.\n  severity: low\n  reference: https://example.com/a\n  tree_hash: ${tree_hash}\n`,
        "guidance.yaml": "guidance: [\n",
      },
    );
    const built = await runInProcess(["build", dir, "--out", path.join(root, "out", "agree-records"), "--json"]);
    const validated = await runInProcess(["validate", dir]);
    expect(built.code).toBe(1);
    expect(validated.code).toBe(1);
    const refused = (JSON.parse(built.stdout) as { problems: { skill: string | null; field: string; message: string }[] }).problems;
    expect(refused.map((p) => p.field)).toEqual(["guidance.yaml", "trust"]);
    for (const p of refused) expect(validated.stdout).toContain(`${p.skill ?? "shelf"}: error: ${p.field}: ${p.message}`);
  });
});

// ---------------------------------------------------------------------------------------------
// Issue 25: what a shelf answers, a lockfile, the install state file and the build cache say. A
// loopback server plays the shelf, answering each path from a table (or streaming for ever).

const GEN = "a".repeat(64);
const PUBLIC_KEY = ["--key-id", "k1", "--public-key", "Yt+/2P1IypEaA+03tBpBXlUeVqZoa4Ds2Wpw3kfHgl8="];

describe("verify on hostile answers: a clear error and exit 1, never exit 70", () => {
  const P = `/g/${GEN}`;
  const listing = { files: [], tree_hash: GEN, signature: null };
  const shapes: Array<[string, Record<string, Answer>]> = [
    ["/v1/shelf is null", { "/v1/shelf": { json: null } }],
    [
      "a generation signature whose skills are not a list",
      {
        "/v1/shelf": { json: { generation: GEN, signature: { key_id: "k1", signature: "x", payload: { skills: 5 } } } },
        [`${P}/skills/index.json`]: { json: { skills: [] } },
      },
    ],
    ["a skill list that is not a list", { "/v1/shelf": { json: { generation: GEN } }, [`${P}/skills/index.json`]: { json: { skills: null } } }],
    [
      "a skill listing without files",
      {
        "/v1/shelf": { json: { generation: GEN } },
        [`${P}/skills/index.json`]: { json: { skills: ["a"] } },
        [`${P}/v1/skills/a`]: { json: { files: null } },
        [`${P}/skills/a/index.json`]: { json: { files: [] } },
      },
    ],
    [
      "a file index that is a string",
      {
        "/v1/shelf": { json: { generation: GEN } },
        [`${P}/skills/index.json`]: { json: { skills: ["a"] } },
        [`${P}/v1/skills/a`]: { json: listing },
        [`${P}/skills/a/index.json`]: { json: { files: "SKILL.md" } },
      },
    ],
    [
      "a skill signature of the wrong types",
      {
        "/v1/shelf": { json: { generation: GEN } },
        [`${P}/skills/index.json`]: { json: { skills: ["a"] } },
        [`${P}/v1/skills/a`]: { json: { ...listing, signature: { key_id: 5, signature: [], revision: 1 } } },
        [`${P}/skills/a/index.json`]: { json: { files: [] } },
      },
    ],
  ];
  for (const [label, answers] of shapes) {
    it(label, async () => {
      const shelf = await fakeShelf(answers);
      try {
        const r = await runInProcess(["verify", shelf.url, ...PUBLIC_KEY]);
        expect(r.internal, r.stderr).toBeUndefined();
        expect(r.code, `${r.stdout}${r.stderr}`).toBe(1);
        expect(r.stderr).toMatch(/nothing was verified: .* (is not|does not)/);
      } finally {
        await shelf.close();
      }
    });
  }

  it("a skill listed twice is a failure, and a shelf withholding the skills its signature names exits 1", async () => {
    const { generateSigningKey, sign, toBase64 } = await import("../../src/core/signing/ed25519.ts");
    const { generationPayload, generationPayloadValue } = await import("../../src/core/signing/payloads.ts");
    const key = await generateSigningKey();
    const keyArgs = ["--key-id", "k1", "--public-key", toBase64(key.publicKey)];
    const withheld = await fakeShelf({});
    const origin = withheld.url;
    const claim = { origin, generation: GEN, skills: [["gone", "b".repeat(64)]] as [string, string][] };
    const signature = { key_id: "k1", signature: toBase64(await sign(key, generationPayload(claim))), payload: generationPayloadValue(claim) };
    await withheld.close();
    // The same port may not come back: serve the withholding shelf, then check the signature names its origin.
    const shelf = await fakeShelf({ "/v1/shelf": { json: { generation: GEN, signature } }, [`/g/${GEN}/skills/index.json`]: { json: { skills: [] } } });
    try {
      const r = await runInProcess(["verify", shelf.url, ...keyArgs, "--origin", origin]);
      expect(r.internal, r.stderr).toBeUndefined();
      expect(r.stdout).toMatch(/FAIL gone: .*not served/);
      expect(r.code, r.stdout).toBe(1);
    } finally {
      await shelf.close();
    }
    const twice = await fakeShelf({
      "/v1/shelf": { json: { generation: GEN, signature: null } },
      [`/g/${GEN}/skills/index.json`]: { json: { skills: ["a", "a"] } },
      [`/g/${GEN}/v1/skills/a`]: { json: { files: [], tree_hash: GEN, signature: null } },
      [`/g/${GEN}/skills/a/index.json`]: { json: { files: [] } },
    });
    try {
      const r = await runInProcess(["verify", twice.url, ...keyArgs, "--json"]);
      expect(r.code).toBe(1);
      const report = JSON.parse(r.stdout) as { failures: { skill: string; reason: string }[] };
      expect(report.failures.filter((f) => f.skill === "a" && /twice/.test(f.reason))).toHaveLength(1);
    } finally {
      await twice.close();
    }
  });
});

describe("install on hostile lockfiles, answers and install state: a clear error and exit 1 or 2, never exit 70", () => {
  const enc = new TextEncoder();

  /** A lockfile for one skill with these files (path → bytes), consistent in its digests and tree hash. */
  async function lockFor(files: Record<string, string>, url: string, extra: Record<string, unknown> = {}, name = "demo", version: string | null = "1.0.0") {
    const { sha256Hex, treeHash } = await import("../../src/core/skill/hash.ts");
    const listed = await Promise.all(
      Object.entries(files).map(async ([p, text]) => ({ path: p, size: enc.encode(text).length, sha256: await sha256Hex(enc.encode(text)) })),
    );
    const skill = { range: "latest", version, tree_hash: await treeHash(listed), generation: GEN, files: listed };
    const file = path.join(root, `lock-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify({ schema: "skillshelf.lock/1", shelf: url, skills: { [name]: skill, ...extra } }));
    return {
      file,
      answers: Object.fromEntries(Object.entries(files).map(([p, text]) => [`/g/${GEN}/skills/${name}/${p}`, { body: text }])) as Record<string, Answer>,
    };
  }

  async function install(
    files: Record<string, string>,
    args: (lock: string, to: string) => string[],
    setup?: (to: string) => void,
    name = "demo",
    version: string | null = "1.0.0",
  ) {
    const shelf = await fakeShelf({});
    try {
      const lock = await lockFor(files, shelf.url, {}, name, version);
      const served = await fakeShelf(lock.answers);
      const to = path.join(root, `to-${Math.random().toString(36).slice(2)}`);
      setup?.(to);
      try {
        return await runInProcess(["install", ...args(lock.file, to), "--url", served.url]);
      } finally {
        await served.close();
      }
    } finally {
      await shelf.close();
    }
  }

  it("a file and a folder of the same name", async () => {
    const r = await install({ "SKILL.md": skillMd("demo"), a: "x", "a/b": "y" }, (lock, to) => ["--lock", lock, "--to", to]);
    expect(r.internal, r.stderr).toBeUndefined();
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/a\/b|"a"/);
  });

  it("a 300-byte file name", async () => {
    const r = await install({ "SKILL.md": skillMd("demo"), [`${"n".repeat(300)}.md`]: "x" }, (lock, to) => ["--lock", lock, "--to", to]);
    expect(r.internal, r.stderr).toBeUndefined();
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/nnnn/);
  });

  it("--to naming a file", async () => {
    const r = await install(
      { "SKILL.md": skillMd("demo") },
      (lock, to) => ["--lock", lock, "--to", to],
      (to) => writeFileSync(to, "not a folder"),
    );
    expect(r.internal, r.stderr).toBeUndefined();
    expect([1, 2]).toContain(r.code);
    expect(r.stderr).toMatch(/--to|not a folder/);
  });

  it("an install state file of the wrong shape", async () => {
    const r = await install(
      { "SKILL.md": skillMd("demo") },
      (lock, to) => ["--lock", lock, "--to", to],
      (to) => {
        mkdirSync(to, { recursive: true });
        writeFileSync(path.join(to, ".skillshelf-installed.json"), JSON.stringify({ schema: "skillshelf.installed/1", skills: "x" }));
      },
    );
    expect(r.internal, r.stderr).toBeUndefined();
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\.skillshelf-installed\.json/);
  });

  it("an install state file naming a skill __proto__ is refused, not read as an empty state", async () => {
    const r = await install(
      { "SKILL.md": skillMd("demo") },
      (lock, to) => ["--lock", lock, "--to", to],
      (to) => {
        mkdirSync(to, { recursive: true });
        writeFileSync(path.join(to, ".skillshelf-installed.json"), '{"schema":"skillshelf.installed/1","skills":{"__proto__":{}}}');
      },
    );
    expect(r.internal, r.stderr).toBeUndefined();
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/__proto__/);
  });

  it("a lockfile entry named __proto__ is refused, not dropped", async () => {
    const shelf = await fakeShelf({});
    try {
      const lock = await lockFor({ "SKILL.md": skillMd("demo") }, shelf.url);
      const text = JSON.parse(readFileSync(lock.file, "utf8")) as { skills: Record<string, unknown> };
      writeFileSync(lock.file, JSON.stringify({ ...text, skills: {} }).replace('"skills":{}', `"skills":{"__proto__":${JSON.stringify(text.skills.demo)}}`));
      const r = await runInProcess(["install", "--lock", lock.file, "--to", path.join(root, "proto-to"), "--url", shelf.url]);
      expect(r.internal, r.stderr).toBeUndefined();
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/__proto__/);
    } finally {
      await shelf.close();
    }
  });

  it("an answer far larger than the locked size is refused as it arrives", async () => {
    const shelf = await fakeShelf({});
    try {
      const lock = await lockFor({ "SKILL.md": "hi" }, shelf.url);
      const served = await fakeShelf({ [`/g/${GEN}/skills/demo/SKILL.md`]: { stream: 100 * 1024 * 1024 } });
      try {
        const r = await runInProcess(["install", "--lock", lock.file, "--to", path.join(root, "big-to"), "--url", served.url]);
        expect(r.internal, r.stderr).toBeUndefined();
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(/more than the locked 2 bytes/);
        // The download stopped near the limit: what the server got to send is socket buffers' worth, not 100 MiB.
        expect(served.sent()).toBeLessThan(16 * 1024 * 1024);
      } finally {
        await served.close();
      }
    } finally {
      await shelf.close();
    }
  }, 60_000);

  it("prints a shelf-supplied version and name with control characters escaped", async () => {
    const r = await install(
      { "SKILL.md": skillMd("demo") },
      (lock, to) => ["--lock", lock, "--to", to],
      undefined,
      "demo",
      "1.0.0\u001b[2J\u001b]0;owned\u0007\r",
    );
    expect(r.internal, r.stderr).toBeUndefined();
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(r.stdout).toContain("1.0.0\\u001b[2J");
  });
});

// The cache document as JSON.parse gives it: edited field by field below, whatever their types.
// biome-ignore lint/suspicious/noExplicitAny: a hostile edit reaches into any field
type CacheJson = Record<string, any>;

describe("build on a hostile build-cache.json: the cache is absent, never a crash or a hang", () => {
  const dir = shelf("cache-hostile", { demo: { "references/a.md": "# A\n" } });
  const out = path.join(root, "out", "cache-hostile");

  async function writeCache(mutate: (doc: CacheJson) => void): Promise<void> {
    const { createHash } = await import("node:crypto");
    const text = readFileSync(path.join(out, "build-cache.json"), "utf8");
    const doc = JSON.parse(text.slice(text.indexOf("\n") + 1)) as CacheJson;
    mutate(doc);
    const body = JSON.stringify(doc);
    writeFileSync(path.join(out, "build-cache.json"), `${createHash("sha256").update(body).digest("hex")}\n${body}`);
  }

  it("edited with its checksum recomputed", async () => {
    const first = await runInProcess(["build", dir, "--out", out]);
    expect(first.code, first.stderr).toBe(0);
    const manifest = readFileSync(path.join(out, "manifest.json"), "utf8");
    const folder = (doc: CacheJson) => Object.keys(doc.skills)[0]!;
    const edits: Array<[string, (doc: CacheJson) => void]> = [
      ["stats not a list", (d) => void (d.skills[folder(d)].stats = null)],
      ["a scan without problems", (d) => void (d.skills[folder(d)].scan = { described: null })],
      ["a described skill of the wrong shape", (d) => void (d.skills[folder(d)].scan.described = { name: 5 })],
      ["archives of the wrong shape", (d) => void (d.archives = { [Object.keys(d.archives)[0]!]: null })],
      ["documents of the wrong shape", (d) => void (d.documents = { k: "x" })],
      ["skills a list", (d) => void (d.skills = [])],
    ];
    for (const [label, edit] of edits) {
      await runInProcess(["build", dir, "--out", out]);
      await writeCache(edit);
      const r = await runInProcess(["build", dir, "--out", out]);
      expect(r.internal, `${label}: ${r.stderr}`).toBeUndefined();
      expect(r.code, `${label}: ${r.stderr}`).toBe(0);
      expect(readFileSync(path.join(out, "manifest.json"), "utf8"), label).toBe(manifest);
    }
  });

  it("a named pipe in its place", async () => {
    const { execFileSync } = await import("node:child_process");
    const { existsSync } = await import("node:fs");
    expect((await runInProcess(["build", dir, "--out", out])).code).toBe(0);
    rmSync(path.join(out, "build-cache.json"), { force: true });
    execFileSync("mkfifo", [path.join(out, "build-cache.json")]);
    const r = await Promise.race([runInProcess(["build", dir, "--out", out]), new Promise<null>((resolve) => setTimeout(() => resolve(null), 20_000))]);
    expect(r, "build hung on the named pipe").not.toBeNull();
    expect(r!.code, r!.stderr).toBe(0);
    expect(existsSync(path.join(out, "manifest.json"))).toBe(true);
  }, 60_000);
});
