// The fixed skill folder whose archive digests are committed in archive.test.ts.
import type { SkillFile } from "../../../src/core/skill/skill.ts";

const e = new TextEncoder();

/** Five files: a SKILL.md, a script, binary bytes, a non-ASCII name, and a path over 100 bytes. */
export const ARCHIVE_FIXTURE: SkillFile[] = [
  {
    path: "SKILL.md",
    bytes: e.encode(
      "---\nname: archive-fixture\ndescription: A fixed skill whose archives have known digests.\n---\n\n# Archive fixture\n\nUsed by the archive digest test.\n",
    ),
  },
  { path: "scripts/run.sh", bytes: e.encode("#!/bin/sh\necho hi\n") },
  { path: "assets/data.bin", bytes: Uint8Array.from({ length: 256 }, (_, i) => i) },
  { path: "references/caf\u00e9.md", bytes: e.encode("# Caf\u00e9\n") },
  { path: `references/${"long-segment-".repeat(8)}/guide.md`, bytes: e.encode("# Guide\n") },
];

/**
 * Known digests. The uncompressed tar is byte-identical to what Python 3.11's tarfile writes for
 * the same members (USTAR, mode 0644, uid/gid 0, empty owner names, mtime 315532800), which
 * test/cli/lib/archive-python.test.ts re-checks. The .tar.gz and .zip digests were verified
 * by extracting with GNU tar, Info-ZIP unzip and Python's tarfile/zipfile (identical trees, the
 * exact bytes); they pin fflate 0.8.3 at level 9.
 */
export const ARCHIVE_DIGESTS = {
  tar: "ece8cc6ed8ffecd65083850185ffd3f092691444c22909d23da58795fc3a7526",
  tarGz: "18eb337f2eecd20a106499790b7b32d7cb6680e375cbc4de32ca69e74e67a931",
  zip: "67364e512cbe94cc8f2906ead3d847b531421d67dbd0e95ba6e55a81ad467942",
};
