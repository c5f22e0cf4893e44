"""The curated shelf (./shelf, served as `npm start` serves it) through agentskills-http 0.7.

docs/compatibility.md ("Known conflict") records a deliberate conflict: agentskills-core 0.7
refuses a string `compatibility` and a string `allowed-tools`, which the specification and
issue 5 require, and registration is atomic. These tests turn that note into a guarded fact:

- `register_all` fails naming exactly the three known skills and their reasons, so a fourth
  incompatible skill fails CI;
- every other curated skill registers on its own, and every skill's files (SKILL.md included)
  read back through the provider byte-identical to ./shelf, so a serving regression fails CI.

run.ts sets SKILLSHELF_INTEROP_BASE (the Worker's loopback origin) and SKILLSHELF_CURATED_SHELF
(the shelf folder it built and published).
"""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path

import pytest
from agentskills_core import SkillRegistry
from agentskills_http import HTTPStaticFileSkillProvider

BASE = os.environ["SKILLSHELF_INTEROP_BASE"].rstrip("/") + "/skills"
SHELF = Path(os.environ["SKILLSHELF_CURATED_SHELF"]) / "skills"

# The known, documented conflict: skill -> agentskills-core 0.7's reasons (without the prefix).
KNOWN_INCOMPATIBLE = {
    "deploying-a-team-shelf": ["field 'compatibility' must be dict, got str"],
    "release-checklist": ["field 'compatibility' must be dict, got str"],
    "security-review": ["field 'allowed-tools' must be list, got str"],
}
RESOURCE_KINDS = ("references", "scripts", "assets")


def _provider(**options) -> HTTPStaticFileSkillProvider:
    with warnings.catch_warnings():
        # The loopback Worker is plain HTTP; the client warns about that, rightly, in production.
        warnings.simplefilter("ignore", UserWarning)
        return HTTPStaticFileSkillProvider(
            BASE, skill_manifest=True, resource_manifest=True, allow_private_network=True, max_retries=0, **options
        )


def _disk_skills() -> list[str]:
    return sorted(p.name for p in SHELF.iterdir() if (p / "SKILL.md").is_file())


def _disk_files(skill: str) -> dict[str, bytes]:
    root = SHELF / skill
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _failures(message: str) -> dict[str, list[str]]:
    """Parses register_all's ValueError: one "Skill 'x' failed validation:" block per skill."""
    out: dict[str, list[str]] = {}
    current = None
    for line in message.splitlines():
        head = re.fullmatch(r"Skill '([^']+)' failed validation:", line)
        if head:
            current = out.setdefault(head.group(1), [])
            continue
        item = re.fullmatch(r"  - Skill '([^']+)': (.*)", line)
        assert current is not None and item is not None, f"unexpected line in the error: {line!r}"
        current.append(item.group(2))
    return out


def test_the_shelf_folder_is_the_curated_one():
    assert len(_disk_skills()) >= 10
    assert set(KNOWN_INCOMPATIBLE) <= set(_disk_skills())


@pytest.mark.asyncio
async def test_register_all_fails_naming_exactly_the_known_incompatible_skills():
    provider = _provider()
    registry = SkillRegistry()
    try:
        assert await provider.discover() == _disk_skills()
        with pytest.raises(ValueError) as caught:
            await registry.register_all(provider)
        assert _failures(str(caught.value)) == KNOWN_INCOMPATIBLE
        assert registry.list_skills() == []  # atomic: nothing registered
    finally:
        await provider.aclose()


@pytest.mark.asyncio
async def test_every_other_skill_registers_on_its_own():
    provider = _provider()
    registry = SkillRegistry()
    try:
        for skill in _disk_skills():
            if skill in KNOWN_INCOMPATIBLE:
                with pytest.raises(ValueError) as caught:
                    await registry.register(skill, provider)
                assert _failures(str(caught.value)) == {skill: KNOWN_INCOMPATIBLE[skill]}
            else:
                await registry.register(skill, provider)
        registered = sorted(s.get_id() for s in registry.list_skills())
        assert registered == [s for s in _disk_skills() if s not in KNOWN_INCOMPATIBLE]
    finally:
        await provider.aclose()


@pytest.mark.asyncio
async def test_every_file_reads_back_byte_identical():
    # Resource manifests (what register_all's provider uses) and, for SKILL.md and nested
    # paths, lossless file access (file_manifest=True) on the same served shelf.
    provider = _provider()
    lossless = _provider(file_manifest=True)
    getters = {"references": provider.get_reference, "scripts": provider.get_script, "assets": provider.get_asset}
    try:
        for skill in _disk_skills():
            files = _disk_files(skill)
            assert await lossless.list_files(skill) == sorted(files), skill
            for path, data in files.items():
                assert await lossless.read_file(skill, path) == data, f"{skill}/{path}"
            listed = await provider.list_resources(skill)
            for kind in RESOURCE_KINDS:
                flat = sorted(p.split("/", 1)[1] for p in files if p.startswith(f"{kind}/") and p.count("/") == 1)
                assert sorted(listed.get(kind, [])) == flat, f"{skill} {kind}"
                for name in flat:
                    assert await getters[kind](skill, name) == files[f"{kind}/{name}"], f"{skill}/{kind}/{name}"
    finally:
        await provider.aclose()
        await lossless.aclose()
