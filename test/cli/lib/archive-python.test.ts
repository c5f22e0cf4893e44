// Independent checks of the deterministic archives with Python's tarfile and zipfile (and GNU tar
// and unzip when present): Python builds the same ustar byte for byte, and both archives extract
// to exactly the fixture's files at the archive root.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { tarArchive, tarGzArchive, zipArchive } from "../../../src/core/generation/archive.ts";
import { ARCHIVE_FIXTURE } from "../../core/generation/archive-fixture.ts";

const dir = mkdtempSync(path.join(tmpdir(), "skillshelf-archive-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PYTHON = `
import hashlib, io, json, sys, tarfile, zipfile
tgz, zp, out = sys.argv[1], sys.argv[2], {}
src = tarfile.open(tgz)
members = src.getmembers()
out["tar_members"] = [[m.name, m.size, m.mode, m.mtime, m.uid, m.gid, m.uname, m.gname, m.type.decode()] for m in members]
out["tar_files"] = {m.name: hashlib.sha256(src.extractfile(m).read()).hexdigest() for m in members}
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as t:
    for m in members:
        data = src.extractfile(m).read()
        ti = tarfile.TarInfo(m.name); ti.size = len(data); ti.mtime = 315532800; ti.mode = 0o644
        ti.uid = 0; ti.gid = 0; ti.uname = ""; ti.gname = ""
        t.addfile(ti, io.BytesIO(data))
out["python_tar"] = hashlib.sha256(buf.getvalue()).hexdigest()
z = zipfile.ZipFile(zp)
out["zip_bad"] = z.testzip()
out["zip_members"] = [[i.filename, i.file_size, list(i.date_time), i.external_attr >> 16] for i in z.infolist()]
out["zip_files"] = {i.filename: hashlib.sha256(z.read(i)).hexdigest() for i in z.infolist()}
print(json.dumps(out))
`;

describe("archives read back by independent tools", () => {
  it("Python's tarfile writes the same ustar, and tarfile/zipfile read back exactly the fixture", async () => {
    const { createHash } = await import("node:crypto");
    const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
    writeFileSync(path.join(dir, "a.tar.gz"), tarGzArchive(ARCHIVE_FIXTURE));
    writeFileSync(path.join(dir, "a.zip"), zipArchive(ARCHIVE_FIXTURE));
    const r = spawnSync("python3", ["-c", PYTHON, path.join(dir, "a.tar.gz"), path.join(dir, "a.zip")], { encoding: "utf8", timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    const sorted = [...ARCHIVE_FIXTURE].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
    expect(out.python_tar).toBe(sha(tarArchive(ARCHIVE_FIXTURE)));
    expect(out.tar_members).toEqual(sorted.map((f) => [f.path, f.bytes.length, 0o644, 315532800, 0, 0, "", "", "0"]));
    expect(out.zip_bad).toBeNull();
    expect(out.zip_members).toEqual(sorted.map((f) => [f.path, f.bytes.length, [1980, 1, 1, 0, 0, 0], 0o100644]));
    const expected = Object.fromEntries(ARCHIVE_FIXTURE.map((f) => [f.path, sha(f.bytes)]));
    expect(out.tar_files).toEqual(expected);
    expect(out.zip_files).toEqual(expected);
  });

  it("GNU tar and unzip extract the same tree", () => {
    const hasTools = spawnSync("sh", ["-c", "command -v tar && command -v unzip"]).status === 0;
    if (!hasTools) return; // python above is the required independent reader; these are extra
    for (const [tool, args] of [
      ["tar", ["-xzf", "a.tar.gz", "-C", "t"]],
      ["unzip", ["-q", "a.zip", "-d", "z"]],
    ] as const) {
      spawnSync("mkdir", ["-p", path.join(dir, tool === "tar" ? "t" : "z")]);
      const r = spawnSync(tool, [...args], { cwd: dir, encoding: "utf8" });
      expect(r.status, r.stderr).toBe(0);
    }
    const diff = spawnSync("diff", ["-r", "t", "z"], { cwd: dir, encoding: "utf8" });
    expect(diff.status, diff.stdout).toBe(0);
  });
});
