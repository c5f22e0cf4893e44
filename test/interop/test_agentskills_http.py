"""agentskills-http's HTTPStaticFileSkillProvider against a running skillshelf, judged by
agentskills-testing's ProviderConformanceSuite (0.7.0, from the reference venv).

The shelf under test serves test/interop/fixtures/contract-shelf, whose only skill is the
suite's contract skill. run.ts sets SKILLSHELF_INTEROP_BASE to the Worker's loopback origin.
Loopback is allowed with the client's documented option, allow_private_network=True.
"""

from __future__ import annotations

import os
import warnings

import pytest
import pytest_asyncio
from agentskills_http import HTTPStaticFileSkillProvider
from agentskills_testing import ContentLimitConformanceSuite, ProviderConformanceSuite

BASE = os.environ["SKILLSHELF_INTEROP_BASE"].rstrip("/") + "/skills"


def _provider(**options) -> HTTPStaticFileSkillProvider:
    with warnings.catch_warnings():
        # The loopback Worker is plain HTTP; the client warns about that, rightly, in production.
        warnings.simplefilter("ignore", UserWarning)
        return HTTPStaticFileSkillProvider(BASE, allow_private_network=True, max_retries=0, **options)


class TestPlainProvider(ProviderConformanceSuite):
    @pytest_asyncio.fixture
    async def provider(self):
        provider = _provider()
        yield provider
        await provider.aclose()


class TestProviderWithBothManifests(ProviderConformanceSuite):
    @pytest_asyncio.fixture
    async def provider(self):
        provider = _provider(resource_manifest=True, skill_manifest=True)
        yield provider
        await provider.aclose()


class TestProviderWithFileManifest(ProviderConformanceSuite):
    """v0.7's lossless mode reads the complete `files` list of the per-skill index.json."""

    @pytest_asyncio.fixture
    async def provider(self):
        provider = _provider(resource_manifest=True, skill_manifest=True, file_manifest=True)
        yield provider
        await provider.aclose()

    @pytest.mark.asyncio
    async def test_file_list_and_bytes_are_complete(self, provider):
        files = await provider.list_files("conformance-skill")
        assert files == ["SKILL.md", "assets/diagram.svg", "references/notes.md", "scripts/run.sh"]
        assert await provider.read_file("conformance-skill", "scripts/run.sh") == b"#!/bin/sh\necho conformance\n"


class TestContentLimit(ContentLimitConformanceSuite):
    @pytest_asyncio.fixture
    async def limited_provider(self):
        provider = _provider(max_response_bytes=4)
        yield provider
        await provider.aclose()


@pytest.mark.asyncio
async def test_revalidation_gets_304_and_keeps_the_text():
    events = []
    provider = _provider(revalidate=True, observer=events.append)
    try:
        first = await provider.get_body("conformance-skill")
        second = await provider.get_body("conformance-skill")  # conditional: If-None-Match
        assert first == second == "# Incident Response\n\nPage the on-call engineer, then open a channel."
        fetches = [e for e in events if e.operation == "fetch"]
        # The first fetch downloads; the second is answered 304 (the client reports it as a cache hit).
        assert [e.cache_hit for e in fetches] == [False, True]
    finally:
        await provider.aclose()
