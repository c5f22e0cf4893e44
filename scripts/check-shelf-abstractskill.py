"""Loads a skillshelf shelf with the real AbstractSkill package and checks every verdict.

Run with the reference venv (scripts/refs/setup.sh):

    .venv-refs/bin/python scripts/check-shelf-abstractskill.py shelf

It proves that our record files are AbstractSkill's formats, unchanged: TrustRegistry.load reads
validations/advisories/guidance without a fallback warning, load_catalog reads catalog.yaml,
seed_registry accepts the shelf as a bundle (so the catalog version is valid), the filesystem
loader accepts every skill, and evaluate_trust gives each skill level first_party, attachable
unless it bundles scripts (then requires_review). Prints one line per skill; exit 1 on any
deviation, 2 on usage errors.
"""

from __future__ import annotations

import logging
import sys
import tempfile
from pathlib import Path

import abstractskill.bundled as bundled
from abstractskill import FilesystemSkillLoader
from abstractskill.catalog import lint_catalog, load_catalog
from abstractskill.tree import inspect_skill_dir
from abstractskill.trust import TrustLevel, TrustRegistry, evaluate_trust, lint_registry


class _Collect(logging.Handler):
    """Collects abstractskill warnings: a #FALLBACK means a file was not read as intended."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: check-shelf-abstractskill.py <shelf-dir>", file=sys.stderr)
        return 2
    shelf = Path(argv[0])
    if not (shelf / "skills").is_dir():
        print(f"{shelf} is not a shelf (no skills/ folder)", file=sys.stderr)
        return 2

    collected = _Collect()
    logging.getLogger("abstractskill").addHandler(collected)
    failures: list[str] = []

    registry = TrustRegistry.load(shelf / "validations.yaml", shelf / "advisories.yaml", shelf / "guidance.yaml")
    failures += [f"lint: {w}" for w in lint_registry(registry)]
    if not registry.guidance:
        failures.append("guidance.yaml has no entries; the shelf documents at least one class-level risk")

    catalog = load_catalog(shelf / "catalog.yaml")
    skill_dirs = sorted(p for p in (shelf / "skills").iterdir() if p.is_dir())
    failures += [f"catalog {w}" for w in lint_catalog(catalog, [p.name for p in skill_dirs])]

    # seed_registry reads the bundle version from catalog.yaml and copies skills/ and the yaml
    # files; pointing it at the shelf proves a host can seed from our bundle as from its own.
    original = bundled.bundled_registry_dir
    bundled.bundled_registry_dir = lambda: shelf.resolve()
    try:
        with tempfile.TemporaryDirectory() as dest:
            report = bundled.seed_registry(dest)
            expected = {f"skills/{p.name}" for p in skill_dirs} | {
                "advisories.yaml", "catalog.yaml", "guidance.yaml", "validations.yaml"}
            if set(report.added) != expected:
                failures.append(f"seed_registry added {sorted(report.added)}, expected {sorted(expected)}")
            print(f"seed: bundle version {report.bundled_version}, {len(report.added)} item(s) added")
    finally:
        bundled.bundled_registry_dir = original

    loaded = {s.name for s in FilesystemSkillLoader([shelf / "skills"]).discover()}
    for skill_dir in skill_dirs:
        name = skill_dir.name
        if name not in loaded:
            failures.append(f"{name}: AbstractSkill's loader skipped it (see the warnings below)")
            continue
        inventory = inspect_skill_dir(skill_dir)
        verdict = evaluate_trust(registry, tree_hash=inventory.tree_hash, name=name, has_scripts=inventory.has_scripts)
        print(f"{name}: level={verdict.level.value} attachable={verdict.attachable} "
              f"requires_review={verdict.requires_review} has_scripts={inventory.has_scripts}")
        if verdict.level is not TrustLevel.FIRST_PARTY:
            failures.append(f"{name}: level {verdict.level.value}, expected first_party: {'; '.join(verdict.reasons)}")
        elif verdict.attachable == inventory.has_scripts:
            failures.append(f"{name}: attachable={verdict.attachable} with has_scripts={inventory.has_scripts}; "
                            "expected attachable exactly when the skill bundles no scripts")

    failures += [f"abstractskill warning: {m}" for m in collected.messages]
    for failure in failures:
        print(f"FAIL: {failure}", file=sys.stderr)
    print(f"{len(skill_dirs)} skill(s), {len(failures)} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
