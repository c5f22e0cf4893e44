// `skillshelf init` and `init --check`, in process: the team repository it writes (files, names, the
// package spec, a seeded shelf whose trust records still check, or an empty one), the mistakes it
// refuses without writing anything, and the edits --check names in a repository that lacks them. The
// whole journey (pack, init, npm install, validate, dev, deploy --dry-run) is .ci/run's team step.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse as parseToml } from "smol-toml";
import { afterAll, describe, expect, it } from "vitest";
import { BINDINGS, COMPATIBILITY_DATE, VARS, VERSION_METADATA } from "../../../src/cli/lib/team/requirements.ts";
import { runInProcess } from "../run-in-process.ts";

const work = mkdtempSync(path.join(tmpdir(), "skillshelf-init-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** init into a fresh folder under the test's scratch folder, naming the package by spec (no npm pack here). */
async function init(folder: string, ...flags: string[]) {
  const dir = path.join(work, folder);
  const run = await runInProcess(["init", dir, "--package", "skillshelf@^0.1.0", ...flags]);
  return { dir, run };
}

describe("skillshelf init", () => {
  it("writes a team repository: package, wrangler config, Worker entry, seeded shelf, secrets example, README, workflow", async () => {
    const { dir, run } = await init("acme-skills", "--exclude", "release-checklist,writing-adrs");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('the shelf repository "acme-skills"');
    for (const file of [
      "package.json",
      "wrangler.toml",
      "src/worker.ts",
      ".dev.vars.example",
      ".gitignore",
      ".npmrc",
      "README.md",
      ".github/workflows/shelf.yml",
      "shelf/validations.yaml",
    ])
      expect(existsSync(path.join(dir, file)), file).toBe(true);

    const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
    const own = JSON.parse(readFileSync("package.json", "utf8"));
    expect(pkg.dependencies).toEqual({ skillshelf: "skillshelf@^0.1.0" });
    expect(pkg.devDependencies).toEqual({ node: own.devDependencies.node, wrangler: own.devDependencies.wrangler });
    expect(pkg.scripts.dev).toBe("skillshelf dev");
    // npm keeps to errors on Node 20, where wrangler's packages would each warn EBADENGINE.
    expect(readFileSync(path.join(dir, ".npmrc"), "utf8")).toMatch(/^loglevel=error$/m);

    const toml = parseToml(readFileSync(path.join(dir, "wrangler.toml"), "utf8")) as {
      name: string;
      main: string;
      compatibility_date: string;
      r2_buckets: unknown[];
      kv_namespaces: Array<{ binding: string }>;
      vars: Record<string, string>;
    };
    expect(toml.name).toBe("acme-skills");
    expect(toml.main).toBe("src/worker.ts");
    expect(toml.compatibility_date).toBe(COMPATIBILITY_DATE);
    expect(toml.r2_buckets).toEqual([{ binding: "SHELF_BUCKET", bucket_name: "acme-skills" }]);
    expect(toml.kv_namespaces[0]!.binding).toBe("SHELF_KV");
    expect(Object.keys(toml.vars).sort()).toEqual(VARS.map((v) => v.name).sort());
    expect(toml.vars.SHELF_VISIBILITY).toBe("private");
    expect(readFileSync(path.join(dir, "src/worker.ts"), "utf8")).toContain('from "skillshelf/worker"');

    const skills = readdirSync(path.join(dir, "shelf/skills")).sort();
    expect(skills).not.toContain("release-checklist");
    expect(skills).not.toContain("writing-adrs");
    expect(skills).toContain("code-review");
    // The excluded skills' records are gone, so the workflow's trust check passes on the seeded shelf.
    const check = await runInProcess(["attest", path.join(dir, "shelf"), "--all", "--check"]);
    expect(check.code, check.stderr).toBe(0);
    expect(readFileSync(path.join(dir, "shelf/validations.yaml"), "utf8")).not.toContain("release-checklist");
    // The staging folder is gone: only the repository is left beside it.
    expect(readdirSync(work).filter((f) => f.includes("init-"))).toEqual([]);
  });

  it("writes an empty shelf with --empty, which validates", async () => {
    const { dir, run } = await init("empty-shelf", "--empty");
    expect(run.code, run.stderr).toBe(0);
    expect(readdirSync(path.join(dir, "shelf/skills"))).toEqual([".gitkeep"]);
    const validate = await runInProcess(["validate", path.join(dir, "shelf")]);
    expect(validate.code, validate.stderr + validate.stdout).toBe(0);
  });

  it("copies a --package tarball under vendor/ and depends on it as a file: dependency", async () => {
    const tarball = path.join(work, "skillshelf-9.9.9.tgz");
    writeFileSync(tarball, "not really a tarball, init only copies it");
    const dir = path.join(work, "vendored");
    const run = await runInProcess(["init", dir, "--package", tarball, "--empty"]);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(path.join(dir, "vendor/skillshelf-9.9.9.tgz"), "utf8")).toContain("not really");
    expect(JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")).dependencies.skillshelf).toBe("file:vendor/skillshelf-9.9.9.tgz");
  });

  it("refuses a non-empty folder, a bad name, a missing tarball and an unknown --exclude, writing nothing", async () => {
    const full = path.join(work, "full");
    mkdirSync(full);
    writeFileSync(path.join(full, "keep.txt"), "mine");
    const cases: Array<[string[], RegExp]> = [
      [["init", full, "--package", "x@1"], /is not empty \(keep\.txt\)/],
      [["init", path.join(work, "ok"), "--name", "Bad_Name", "--package", "x@1"], /is not a Worker name/],
      [["init", path.join(work, "---"), "--package", "x@1"], /pass --name/],
      [["init", path.join(work, "t"), "--package", path.join(work, "missing.tgz")], /no such tarball/],
      [["init", path.join(work, "u"), "--package", "x@1", "--exclude", "no-such-skill"], /--exclude names no item/],
      [["init", path.join(work, "v"), "--package", "x@1", "--empty", "--exclude", "code-review"], /--empty seeds none/],
      [["init"], /name the folder/],
      [["init", "a", "--json"], /--json goes with --check/],
    ];
    for (const [args, message] of cases) {
      const run = await runInProcess(args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr, args.join(" ")).toMatch(message);
      expect(run.internal).toBeUndefined();
    }
    expect(readFileSync(path.join(full, "keep.txt"), "utf8")).toBe("mine");
    for (const folder of ["ok", "t", "u", "v"]) expect(existsSync(path.join(work, folder)), folder).toBe(false);
    expect(readdirSync(work).filter((f) => f.includes("init-"))).toEqual([]);
  });
});

describe("skillshelf init --check", () => {
  it("finds nothing to edit in a repository init just wrote (the placeholder KV id is a notice)", async () => {
    const { dir } = await init("fresh");
    const run = await runInProcess(["init", "--check", dir, "--json"]);
    expect(run.code, run.stdout).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.findings.filter((f: { level: string }) => f.level === "edit")).toEqual([]);
    expect(report.findings.map((f: { message: string }) => f.message).join("\n")).toMatch(/SHELF_KV's id is still the placeholder/);
    // The version binding is written, so no cold isolate builds every listing from all shards.
    expect(report.findings.map((f: { message: string }) => f.message).join("\n")).not.toContain(VERSION_METADATA.binding);
  });

  it("names a planted missing binding, a missing var, an old compatibility date and a wrangler outside the range", async () => {
    const { dir } = await init("upgrading");
    const file = path.join(dir, "wrangler.toml");
    const toml = readFileSync(file, "utf8")
      .replace('binding = "SHELF_BUCKET"', 'binding = "RENAMED_BUCKET"')
      .replace(/^SHELF_DISCOVERY = .*$/m, "")
      .replace(`compatibility_date = "${COMPATIBILITY_DATE}"`, 'compatibility_date = "2025-01-01"');
    writeFileSync(file, `${toml}\n[env.staging]\nname = "upgrading-staging"\n`);
    const pkgFile = path.join(dir, "package.json");
    const pkg = JSON.parse(readFileSync(pkgFile, "utf8"));
    pkg.devDependencies.wrangler = "3.99.0";
    writeFileSync(pkgFile, JSON.stringify(pkg));

    const run = await runInProcess(["init", "--check", dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/edit +wrangler\.toml top level: no R2 bucket bound as SHELF_BUCKET/);
    expect(run.stdout).toMatch(/var SHELF_DISCOVERY is missing .* add SHELF_DISCOVERY = "all" under \[vars\]/);
    expect(run.stdout).toMatch(/compatibility_date is 2025-01-01|is 2025-01-01; this skillshelf is tested at/);
    // An environment inherits no bindings or vars from the top level: each is named for [env.staging].
    for (const binding of BINDINGS)
      expect(run.stdout).toContain(`[env.staging]: no ${binding.kind === "r2_buckets" ? "R2 bucket" : "KV namespace"} bound as ${binding.binding}`);
    // Without [version_metadata] the Worker works, building listings in every cold isolate: a notice.
    expect(run.stdout).toMatch(/notice +wrangler\.toml \[env\.staging\]: no \[env\.staging\.version_metadata\] bound as CF_VERSION_METADATA/);
    expect(run.stdout).not.toMatch(/top level: no \[version_metadata\]/);
    expect(run.stdout).toMatch(/wrangler 3\.99\.0 is outside the range/);
    expect(run.stdout).toMatch(/edit\(s\) needed for skillshelf/);
  });

  it("knows the identity provider's vars: commented in a new repository, and names what turning it on still needs", async () => {
    const { dir } = await init("oidc-shelf");
    const file = path.join(dir, "wrangler.toml");
    const written = readFileSync(file, "utf8");
    for (const name of ["SHELF_OIDC_ISSUER", "SHELF_OIDC_CLIENT_ID", "SHELF_OIDC_ALLOWED_DOMAINS", "SHELF_OIDC_REQUIRED_CLAIM"])
      expect(written).toMatch(new RegExp(`^# ${name} = "`, "m"));
    expect(readFileSync(path.join(dir, ".dev.vars.example"), "utf8")).toMatch(/^SHELF_OIDC_CLIENT_SECRET=$/m);
    writeFileSync(file, written.replace(/^# SHELF_OIDC_ISSUER = /m, "SHELF_OIDC_ISSUER = "));
    const run = await runInProcess(["init", "--check", dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/SHELF_OIDC_ISSUER is set without SHELF_OIDC_CLIENT_ID/);
    expect(run.stdout).toMatch(/without SHELF_OIDC_ALLOWED_DOMAINS or SHELF_OIDC_REQUIRED_CLAIM/);
    expect(run.stdout).not.toMatch(/var SHELF_OIDC_ISSUER is not read/);
    const on = written
      .replace(/^# SHELF_OIDC_ISSUER = /m, "SHELF_OIDC_ISSUER = ")
      .replace(/^# SHELF_OIDC_CLIENT_ID = /m, "SHELF_OIDC_CLIENT_ID = ")
      .replace(/^# SHELF_OIDC_ALLOWED_DOMAINS = /m, "SHELF_OIDC_ALLOWED_DOMAINS = ");
    writeFileSync(file, on);
    const ok = await runInProcess(["init", "--check", dir]);
    expect(ok.code, ok.stdout).toBe(0);
    expect(ok.stdout).toMatch(/SHELF_OIDC_CLIENT_SECRET/);
  });

  it("checks webhook settings as the Worker reads them: commented in a new repository, each mistake named", async () => {
    const { dir } = await init("hooks-shelf");
    const file = path.join(dir, "wrangler.toml");
    const written = readFileSync(file, "utf8");
    expect(written).toMatch(/^# SHELF_WEBHOOK_URLS = "/m);
    expect(readFileSync(path.join(dir, ".dev.vars.example"), "utf8")).toMatch(/^SHELF_WEBHOOK_SECRET=$/m);
    // Uncommented as written: valid, with a notice that a plain URL needs the secret.
    writeFileSync(file, written.replace(/^# SHELF_WEBHOOK_URLS = /m, "SHELF_WEBHOOK_URLS = "));
    const ok = await runInProcess(["init", "--check", dir]);
    expect(ok.code, ok.stdout).toBe(0);
    expect(ok.stdout).toMatch(/signed with the SHELF_WEBHOOK_SECRET secret/);
    expect(ok.stdout).not.toMatch(/var SHELF_WEBHOOK_URLS is not read/);
    // An http receiver, a secret committed under [vars], and a malformed local secret: three edits.
    writeFileSync(
      file,
      written.replace(/^# SHELF_WEBHOOK_URLS = .*$/m, 'SHELF_WEBHOOK_URLS = "https://ok.example/h, http://ci.example/hook"\nSHELF_WEBHOOK_SECRET = "whsec_x"'),
    );
    writeFileSync(path.join(dir, ".dev.vars"), 'PUBLISH_TOKEN_SHA256=abc\nSHELF_WEBHOOK_SECRET="whsec_c2hvcnQ="\n');
    const bad = await runInProcess(["init", "--check", dir]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/SHELF_WEBHOOK_URLS entry 2 \(http:\/\/ci\.example\/…\) is not https/);
    expect(bad.stdout).toMatch(/SHELF_WEBHOOK_SECRET is under \[vars\], where it is committed/);
    expect(bad.stdout).toMatch(/\.dev\.vars.*SHELF_WEBHOOK_SECRET decodes to 5 bytes/);
    expect(bad.stdout).not.toContain("c2hvcnQ");
  });

  it("holds this repository's own wrangler.toml to the same requirements", async () => {
    const run = await runInProcess(["init", "--check", ".", "--json"]);
    const findings = JSON.parse(run.stdout).findings as Array<{ level: string; message: string }>;
    expect(findings.filter((f) => f.level === "edit")).toEqual([]);
    expect(findings.filter((f) => f.message.includes(VERSION_METADATA.binding))).toEqual([]);
    expect(run.code).toBe(0);
  });

  it("says what it needs when there is no wrangler.toml, or it is not TOML", async () => {
    const none = await runInProcess(["init", "--check", work]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/has no wrangler\.toml/);
    const broken = path.join(work, "broken");
    mkdirSync(broken);
    writeFileSync(path.join(broken, "wrangler.toml"), 'name = "x\n');
    const bad = await runInProcess(["init", "--check", broken]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/wrangler\.toml is not valid TOML/);
    expect(bad.internal).toBeUndefined();
  });
});
