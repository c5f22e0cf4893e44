"""The forms the curated shelf avoids, through agentskills-http 0.7: each is refused by exactly the
agentskills-core checks that `skillshelf validate` names in its warning.

fixtures/other-forms.json lists, per fixture skill, the clients that refuse it and their reasons;
test/shelf/other-forms.test.ts checks that validate's warnings name exactly those clients, and
this file checks that the real clients do refuse (and only those): `registry` is agentskills-core's
registry (`SkillRegistry.register`, what register_all runs), `snapshot` its snapshot and signing
checks (`capture_skill`, then `build_skill_manifest` / `signature_payload`). The MCP SDK's entries
(`mcp_sdk`) are not checked here: the SDK is not a dependency (docs/compatibility.md).

run.ts sets SKILLSHELF_INTEROP_BASE (the Worker serving fixtures/other-forms-shelf) and
SKILLSHELF_OTHER_FORMS (the path of other-forms.json).
"""

from __future__ import annotations

import json
import os
import re
import warnings
from pathlib import Path

import pytest
from agentskills_core import Skill, SkillRegistry
from agentskills_core.manifests import build_skill_manifest
from agentskills_core.snapshots import capture_skill
from agentskills_core.trust import signature_payload
from agentskills_http import HTTPStaticFileSkillProvider

BASE = os.environ["SKILLSHELF_INTEROP_BASE"].rstrip("/") + "/skills"
EXPECTED: dict[str, dict] = json.loads(Path(os.environ["SKILLSHELF_OTHER_FORMS"]).read_text("utf-8"))


def _provider(**options) -> HTTPStaticFileSkillProvider:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # plain HTTP on loopback
        return HTTPStaticFileSkillProvider(
            BASE, skill_manifest=True, resource_manifest=True, allow_private_network=True, max_retries=0, **options
        )


def _reasons(message: str, skill: str) -> list[str]:
    """register's ValueError: "Skill 'x' failed validation:" then one "  - Skill 'x': reason" line each."""
    lines = message.splitlines()
    assert lines[0] == f"Skill '{skill}' failed validation:", message
    out = []
    for line in lines[1:]:
        item = re.fullmatch(rf"  - Skill '{re.escape(skill)}': (.*)", line)
        assert item is not None, f"unexpected line in the error: {line!r}"
        out.append(item.group(1))
    return out


@pytest.mark.asyncio
async def test_the_served_fixture_is_the_described_one():
    provider = _provider()
    try:
        assert await provider.discover() == sorted(EXPECTED)
    finally:
        await provider.aclose()


@pytest.mark.asyncio
@pytest.mark.parametrize("skill", sorted(EXPECTED))
async def test_agentskills_core_registry_refuses_exactly_what_validate_says(skill: str):
    provider = _provider()
    registry = SkillRegistry()
    refused = EXPECTED[skill]["refused_by"].get("registry")
    try:
        if refused is None:
            await registry.register(skill, provider)
            assert [s.get_id() for s in registry.list_skills()] == [skill]
        else:
            with pytest.raises(ValueError) as caught:
                await registry.register(skill, provider)
            assert _reasons(str(caught.value), skill) == refused
    finally:
        await provider.aclose()


@pytest.mark.asyncio
@pytest.mark.parametrize("skill", sorted(EXPECTED))
async def test_agentskills_core_snapshot_and_signing_refuse_exactly_what_validate_says(skill: str):
    lossless = _provider(file_manifest=True)
    refused = EXPECTED[skill]["refused_by"].get("snapshot")
    try:
        snapshot = await capture_skill(Skill(skill_id=skill, provider=lossless))
        if refused is None:
            assert build_skill_manifest(snapshot)["frontmatter"]["name"] == skill
            signature_payload(snapshot, origin="skillshelf-interop")
        else:
            for check in (build_skill_manifest, lambda s: signature_payload(s, origin="skillshelf-interop")):
                with pytest.raises(ValueError) as caught:
                    check(snapshot)
                assert str(caught.value) == refused
    finally:
        await lossless.aclose()
