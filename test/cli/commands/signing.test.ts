// keygen, build's signing options and verify's argument handling, in process on Node: the key file
// (PKCS#8 PEM, mode 0600, never overwritten, never inside a shelf or build), a signed build's
// signatures.json that verifies with the core, and every user mistake an exit 2 or 1 with one line.
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { rmSync } from "node:fs";
import { importPkcs8Pem, toBase64 } from "../../../src/core/signing/ed25519.ts";
import { Keyring } from "../../../src/core/signing/keys.ts";
import { SignaturesDocumentSchema, verifySignaturesDocument } from "../../../src/core/signing/signatures.ts";
import { runInProcess } from "../run-in-process.ts";

const root = mkdtempSync(path.join(tmpdir(), "skillshelf-signing-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function shelfWithOneSkill(): string {
  const shelf = path.join(root, `shelf-${Math.random().toString(36).slice(2)}`);
  mkdirSync(path.join(shelf, "skills", "hello"), { recursive: true });
  writeFileSync(
    path.join(shelf, "skills", "hello", "SKILL.md"),
    '---\nname: hello\ndescription: Says hello.\nversion: "1.0.0"\n---\n\n# Hello\n\nSay hello.\n',
  );
  return shelf;
}

describe("keygen", () => {
  it("writes a PKCS#8 PEM key with mode 0600 and prints its public half", async () => {
    const out = path.join(root, "k1.pem");
    const r = await runInProcess(["keygen", "--out", out, "--key-id", "k1", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const printed = JSON.parse(r.stdout) as { key_id: string; public_key: string; status: string };
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const key = await importPkcs8Pem(readFileSync(out, "utf8"));
    expect(printed).toMatchObject({ key_id: "k1", public_key: toBase64(key.publicKey), status: "active" });
  });

  it("refuses to overwrite, a path inside a shelf or build folder, and a missing --out", async () => {
    const out = path.join(root, "taken.pem");
    writeFileSync(out, "mine");
    const again = await runInProcess(["keygen", "--out", out]);
    expect([again.code, again.stderr]).toEqual([1, expect.stringContaining("refusing to overwrite")]);
    expect(readFileSync(out, "utf8")).toBe("mine");
    const shelf = shelfWithOneSkill();
    const inside = await runInProcess(["keygen", "--out", path.join(shelf, "skills", "key.pem")]);
    expect([inside.code, inside.stderr]).toEqual([2, expect.stringContaining("looks like a shelf folder")]);
    const named = await runInProcess(["keygen", "--out", path.join(root, "b", "key.pem"), "--build", path.join(root, "b")]);
    expect([named.code, named.stderr]).toEqual([2, expect.stringContaining("inside the build folder")]);
    expect((await runInProcess(["keygen"])).code).toBe(2);
    expect((await runInProcess(["keygen", "--out", path.join(root, "x.pem"), "--key-id", "has space"])).code).toBe(2);
  });
});

describe("build --sign-key", () => {
  it("writes signatures.json that verifies under the key, for the origin given", async () => {
    const keyFile = path.join(root, "build-key.pem");
    expect((await runInProcess(["keygen", "--out", keyFile, "--key-id", "k1"])).code).toBe(0);
    const shelf = shelfWithOneSkill();
    const out = path.join(root, `out-${Math.random().toString(36).slice(2)}`);
    const r = await runInProcess(["build", shelf, "--out", out, "--sign-key", keyFile, "--origin", "https://shelf.example", "--key-id", "k1", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).signed).toEqual({ origin: "https://shelf.example", key_id: "k1" });
    const doc = SignaturesDocumentSchema.parse(JSON.parse(readFileSync(path.join(out, "signatures.json"), "utf8")));
    expect(doc.skills.map((s) => [s.name, s.version])).toEqual([["hello", "1.0.0"]]);
    const key = await importPkcs8Pem(readFileSync(keyFile, "utf8"));
    const ring = new Keyring([{ key_id: "k1", public_key: toBase64(key.publicKey), status: "active" }]);
    expect(await verifySignaturesDocument(doc, ring)).toEqual([]);
    // An unsigned rebuild into the same folder leaves no stale signatures behind.
    expect((await runInProcess(["build", shelf, "--out", out])).code).toBe(0);
    expect(() => statSync(path.join(out, "signatures.json"))).toThrow();
  });

  it("refuses a key inside the shelf, and signing options without a key or origin", async () => {
    const shelf = shelfWithOneSkill();
    const out = path.join(root, "unused-out");
    const keyInShelf = path.join(shelf, "key.pem");
    writeFileSync(keyInShelf, "x");
    const inside = await runInProcess(["build", shelf, "--out", out, "--sign-key", keyInShelf, "--origin", "https://o", "--key-id", "k1"]);
    expect([inside.code, inside.stderr]).toEqual([2, expect.stringContaining("is inside the shelf folder")]);
    const noKey = await runInProcess(["build", shelf, "--out", out, "--origin", "https://o"]);
    expect([noKey.code, noKey.stderr]).toEqual([2, expect.stringContaining("--origin and --key-id sign with a key")]);
    const keyFile = path.join(root, "k-noorigin.pem");
    await runInProcess(["keygen", "--out", keyFile]);
    const noOrigin = await runInProcess(["build", shelf, "--out", out, "--sign-key", keyFile, "--key-id", "k1"]);
    expect([noOrigin.code, noOrigin.stderr]).toEqual([2, expect.stringContaining("signing needs --origin")]);
    const notKey = path.join(root, "not-a-key.pem");
    writeFileSync(notKey, "hello");
    const bad = await runInProcess(["build", shelf, "--out", out, "--sign-key", notKey, "--key-id", "k1", "--origin", "https://o"]);
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining("not a PKCS#8 PEM private key")]);
    for (const r of [inside, noKey, noOrigin, bad]) expect(r.stderr).not.toContain("    at ");
  });
});

describe("the shelf's signing settings", () => {
  it("are read by build and never copied by seed into a team's shelf", async () => {
    const keyFile = path.join(root, "config-key.pem");
    await runInProcess(["keygen", "--out", keyFile, "--key-id", "cfg"]);
    const bundle = shelfWithOneSkill();
    writeFileSync(path.join(bundle, "catalog.yaml"), 'version: "2026.12.1"\nskills: []\n');
    writeFileSync(path.join(bundle, "skillshelf-signing.json"), JSON.stringify({ origin: "https://bundle.example", key_id: "cfg", key_file: keyFile }));
    const out = path.join(root, "config-out");
    const built = await runInProcess(["build", bundle, "--out", out, "--json"]);
    expect(built.code, built.stderr).toBe(0);
    expect(JSON.parse(built.stdout).signed).toEqual({ origin: "https://bundle.example", key_id: "cfg" });
    const team = path.join(root, "team-shelf");
    const seeded = await runInProcess(["seed", "--from", bundle, "--to", team]);
    expect(seeded.code, seeded.stderr).toBe(0);
    expect(statSync(path.join(team, "skills", "hello", "SKILL.md")).isFile()).toBe(true);
    expect(() => statSync(path.join(team, "skillshelf-signing.json"))).toThrow();
  });
});

describe("verify's arguments", () => {
  it("needs exactly one source of trust and a URL; an unreachable shelf verifies nothing (exit 1)", async () => {
    expect((await runInProcess(["verify", "http://127.0.0.1:9"])).code).toBe(2);
    expect((await runInProcess(["verify", "http://127.0.0.1:9", "--keys", "a", "--trust-on-first-use", "b"])).code).toBe(2);
    expect((await runInProcess(["verify", "ftp://x", "--keys", "a"])).code).toBe(2);
    const badKey = await runInProcess(["verify", "http://127.0.0.1:9", "--key-id", "k1", "--public-key", "AA=="]);
    expect([badKey.code, badKey.stderr]).toEqual([2, expect.stringContaining("public_key must be standard base64 of 32 raw bytes")]);
    const r = await runInProcess(["verify", "http://127.0.0.1:9", "--key-id", "k1", "--public-key", "Yt+/2P1IypEaA+03tBpBXlUeVqZoa4Ds2Wpw3kfHgl8="]);
    expect([r.code, r.stderr]).toEqual([1, expect.stringContaining("nothing was verified: cannot reach http://127.0.0.1:9/v1/shelf")]);
  });
});
