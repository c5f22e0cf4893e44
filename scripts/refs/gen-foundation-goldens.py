"""Writes test/goldens/foundation/*.json from the real reference packages.

- pyyaml-scalars.json: how PyYAML's safe_load (YAML 1.1, used by both seed libraries) types
  each plain scalar, which our YAML layer must reproduce.
- versions.json: agentskills-core's validate_version message for each frontmatter value.
- tree-hashes.json: abstractskill's hash_skill_tree and inspect_skill_dir over small trees.
Inputs live here; outputs come only from the libraries. Run via `npm run refs:goldens`.
"""
import base64
import json
import pathlib
import tempfile

import yaml
from abstractskill.tree import hash_skill_tree, inspect_skill_dir
from agentskills_core.validation import validate_version

OUT = pathlib.Path(__file__).resolve().parents[2] / "test" / "goldens" / "foundation"

SCALARS = [
    "yes", "no", "on", "off", "y", "n", "Y", "N", "True", "TRUE", "tRUE", "false",
    "1.0", "1", "010", "0o10", "0x1f", "0b101", "1_000", "1:20", "-1:20", "190:20:30.15",
    ".inf", "-.Inf", ".nan", "+12", "-0", "0.", ".5", "1e3", "1.5e3", "6.8523015e+5",
    "685.230_15e+03", "~", "null", "Null", "NULL", "", "2024-01-15", "2024-1-15",
    "2024-01-15 10:00:00", "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10 Z",
    "1.2.3", "v1.0.0", "hello world", "<<x", "0o17", "08", "09.5", "+.inf",
]


def scalar_golden(source):
    value = yaml.safe_load(f"v: {source}\n")["v"]
    entry = {"source": source, "type": type(value).__name__}
    if isinstance(value, bool) or value is None or isinstance(value, str):
        entry["value"] = value
    elif isinstance(value, int):
        entry["value"] = value
    elif isinstance(value, float):
        entry["value"] = repr(value)  # nan/inf have no JSON spelling
    else:  # date / datetime
        if hasattr(value, "hour"):
            if value.tzinfo is not None:
                value = value.astimezone(__import__("datetime").timezone.utc).replace(tzinfo=None)
            entry["value"] = value.isoformat(timespec="milliseconds") + "Z"
        else:
            entry["value"] = value.isoformat() + "T00:00:00.000Z"
    return entry


VERSIONS = [
    '"1.0.0"', '"2.1.0-rc.1"', '"1.0.0+build.5"', '"1.0"', '"01.0.0"', '"1.0.0-alpha.01"',
    '"1.0.0+"', '"v1.0.0"', "1.0", "1", "2024-01-15", "", "true", '"1.2.3-x.7.z.92+exp.sha.5114f85"',
]


def version_golden(source):
    value = yaml.safe_load(f"version: {source}\n")["version"]
    return {"yaml": f"version: {source}", "message": validate_version(value)}


TREES = {
    "empty": {},
    "hello-with-script": {"SKILL.md": b"# Hello\n", "scripts/run.sh": b"#!/bin/sh\n"},
    "byte-order": {
        "SKILL.md": b"x", "B": b"1", "_": b"2", "a-b": b"3", "a.b": b"4", "a/b": b"5", "a0": b"6", "b": b"7",
    },
    "astral-vs-bmp": {"SKILL.md": b"s", "\uff21.md": b"fullwidth", "\U0001F600.md": b"emoji", "\ue000.md": b"pua"},
    "junk-and-dotfiles": {
        "SKILL.md": b"---\nname: x\n---\n", ".DS_Store": b"junk", "sub/Thumbs.db": b"junk", "desktop.ini": b"junk",
        ".hidden/file.txt": b"kept", "empty.txt": b"", "deep/a/b/c.py": b"print(1)\n",
    },
    "injectivity-two-files": {"x": b"X", "y": b"Y"},
    "code-extension-only": {"SKILL.md": b"s", "tools/helper.PY": b"print(1)\n"},
    "nested-scripts-not-top": {"SKILL.md": b"s", "sub/scripts/x.md": b"notes"},
}


def tree_golden(name, files):
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp) / name
        root.mkdir()
        for rel, data in files.items():
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
        entry = {
            "name": name,
            "files": {rel: base64.b64encode(data).decode() for rel, data in files.items()},
            "tree_hash": hash_skill_tree(root),
        }
        if "SKILL.md" in files:
            inv = inspect_skill_dir(root)
            entry["inventory"] = {
                "files": [[r.rel_path, r.size_bytes, r.sha256] for r in inv.files],
                "total_bytes": inv.total_bytes,
                "has_scripts": inv.has_scripts,
            }
        return entry


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    write("pyyaml-scalars.json", [scalar_golden(s) for s in SCALARS])
    write("versions.json", [version_golden(v) for v in VERSIONS])
    write("tree-hashes.json", [tree_golden(n, f) for n, f in TREES.items()])


def write(name, data):
    (OUT / name).write_text(json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    print(f"  wrote {OUT.name}/{name}")


if __name__ == "__main__":
    main()
