"""The curated shelf (./shelf, served as `npm start` serves it) through agentskills-http 0.7.

The curated shelf must load in every supported client (issue 12; docs/compatibility.md, "What
each client reads"). Here the real agentskills-core 0.7 checks that, over HTTP:

- `register_all` registers every curated skill (its registry refuses a string `compatibility` /
  `allowed-tools`, an empty body; registration is atomic, so one such skill refuses the shelf);
- every skill, captured whole through lossless file access, passes agentskills-core's snapshot
  and signing checks (`build_skill_manifest`, `content_revision`, `signature_payload`), which
  refuse `metadata` values that are not strings, a list `allowed-tools`, a mapping `compatibility`;
- agentskills-core's own tag filter reads only a list, so it ignores the curated comma-separated
  tags (documented; skillshelf's filter reads them);
- every file of every skill reads back byte-identical to ./shelf, so a serving regression fails.

run.ts sets SKILLSHELF_INTEROP_BASE (the Worker's loopback origin) and SKILLSHELF_CURATED_SHELF
(the shelf folder it built and published).
"""

from __future__ import annotations

import logging
import os
import warnings
from pathlib import Path

import pytest
from agentskills_core import SkillRegistry
from agentskills_core.manifests import build_skill_manifest
from agentskills_core.snapshots import capture_skill
from agentskills_core.trust import content_revision, signature_payload
from agentskills_http import HTTPStaticFileSkillProvider

BASE = os.environ["SKILLSHELF_INTEROP_BASE"].rstrip("/") + "/skills"
SHELF = Path(os.environ["SKILLSHELF_CURATED_SHELF"]) / "skills"
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


def test_the_shelf_folder_is_the_curated_one():
    assert len(_disk_skills()) >= 12
    assert {"deploying-a-team-shelf", "release-checklist", "security-review"} <= set(_disk_skills())


@pytest.mark.asyncio
async def test_register_all_registers_every_curated_skill():
    provider = _provider()
    registry = SkillRegistry()
    try:
        assert await provider.discover() == _disk_skills()
        assert await registry.register_all(provider) == _disk_skills()
        assert sorted(s.get_id() for s in registry.list_skills()) == _disk_skills()
    finally:
        await provider.aclose()


@pytest.mark.asyncio
async def test_every_skill_passes_the_snapshot_and_signing_checks():
    lossless = _provider(file_manifest=True)
    registry = SkillRegistry()
    try:
        await registry.register_all(lossless)
        for skill_id in _disk_skills():
            snapshot = await capture_skill(registry.get_skill(skill_id))
            manifest = build_skill_manifest(snapshot)
            assert manifest["frontmatter"]["name"] == skill_id
            assert content_revision(snapshot).startswith("sha256:")
            assert b'"contract":"agentskills-snapshot-v1"' in signature_payload(snapshot, origin="skillshelf-interop")
    finally:
        await lossless.aclose()


@pytest.mark.asyncio
async def test_agentskills_core_tag_filter_ignores_the_comma_separated_tags(caplog):
    # Documented in docs/compatibility.md: the curated tags are one string under `metadata`
    # (the MCP SDK and agentskills-core's snapshots refuse a list there); agentskills-core's tag
    # filter reads only a list, so it matches no curated skill and says why.
    provider = _provider()
    registry = SkillRegistry()
    try:
        await registry.register_all(provider)
        with caplog.at_level(logging.WARNING):
            catalog = await registry.get_skills_catalog(tags=["incident"])
        assert "incident-response" not in catalog
        assert "metadata.tags must be a list of strings; ignoring it for filtering" in caplog.text
        assert "incident-response" in await registry.get_skills_catalog()
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
