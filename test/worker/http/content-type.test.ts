// Unit tests of src/worker/http/content-type.ts: which Content-Type a skill file is served with.
import { describe, expect, it } from "vitest";
import { servedTypeFor } from "../../../src/worker/http/content-type.ts";

describe("content-type policy", () => {
  it.each([
    ["SKILL.md", "text/markdown", "text/markdown; charset=utf-8", undefined],
    ["references/a.json", "application/json", "application/json", undefined],
    ["scripts/run.sh", "text/x-shellscript", "text/plain; charset=utf-8", undefined],
    ["scripts/run.py", undefined, "text/plain; charset=utf-8", undefined],
    ["scripts/tool.bin", "application/octet-stream", "application/octet-stream", 'attachment; filename="tool.bin"'],
    ["assets/diagram.svg", "image/svg+xml", "text/plain; charset=utf-8", undefined],
    ["assets/page.html", "text/html", "text/plain; charset=utf-8", undefined],
    ["assets/app.js", "text/javascript", "text/plain; charset=utf-8", undefined],
    ["assets/logo.png", "image/png", "image/png", undefined],
    ["assets/blob.dat", "application/octet-stream", "application/octet-stream", 'attachment; filename="blob.dat"'],
    ["assets/notes.rst", "text/x-rst", "text/plain; charset=utf-8", undefined],
    ["code-review.tar.gz", undefined, "application/gzip", undefined],
    ["code-review.zip", undefined, "application/zip", undefined],
  ])("%s (%s) → %s", (path, media, type, disposition) => {
    expect(servedTypeFor(path, media)).toEqual(disposition ? { contentType: type, disposition } : { contentType: type });
  });
});
