#!/usr/bin/env python3
"""Writes the agentskills MCP tool goldens under test/goldens/mcp-tools/.

Builds a few skill folders here, serves them with the real agentskills-mcp-server 0.6.0 (the last
release with the eight agentskills tools) over agentskills-fs and agentskills-core, calls every
tool through the Python MCP SDK's own client (in memory), and stores the skills, each tool's
argument schema and every call's answer (text and isError) as JSON. skillshelf's /mcp tests
publish the same skills and must give the same answers; .ci/run reruns this script and fails
when the committed file differs.

Run through the second reference venv: `npm run refs:goldens` (or
.venv-refs-mcp06/bin/python this-file). Output is deterministic: no timestamps, no host data.
"""

from __future__ import annotations

import asyncio
import logging
import base64
import json
import mimetypes
import tempfile
from importlib.metadata import version
from pathlib import Path

# As in gen-agentskills-goldens.py: the media types of binary envelopes must not depend on the
# host's /etc/mime.types (a Worker has none), so pin the lookup to CPython's built-in table.
mimetypes.knownfiles = []
mimetypes.init()
# The MCP SDK logs every tool error the goldens provoke on purpose; the JSON records them.
logging.disable(logging.CRITICAL)

from agentskills_core import SkillRegistry, resolve_fast_path  # noqa: E402
from agentskills_fs import LocalFileSystemSkillProvider  # noqa: E402
from agentskills_mcp_server.server import create_mcp_server  # noqa: E402
from mcp import Client  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test" / "goldens" / "mcp-tools"

PNG = bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0xFF, 0x00, 0x80])
# Over the 64 KiB inline limit, not UTF-8: the envelope carries a note instead of content.
BIG = bytes((i * 7 + 3) % 256 for i in range(70_000))

LONG_SECTIONS = "\n".join(
    f"## Step {i}\n\n" + " ".join(f"Check item {i}.{j} against the runbook before moving on." for j in range(12)) + "\n" for i in range(1, 9)
)

SKILLS: dict[str, dict[str, str | bytes]] = {
    "incident-response": {
        "SKILL.md": (
            "---\n"
            "name: incident-response\n"
            'description: "Run a production incident: declare severity, page people, keep a timeline \u2014 and write the postmortem."\n'
            "license: Apache-2.0\n"
            "revision: 2.0\n"
            "metadata:\n"
            "  tags: incident, sev1\n"
            "  owner: sre\n"
            "---\n"
            "\n"
            "Read this first.\n"
            "\n"
            "# Incident response\n"
            "\n"
            "Declare, then act.\n"
            "\n"
            "## Roles\n"
            "\n"
            "Pick an incident commander.\n"
            "\n"
            "## Roles\n"
            "\n"
            "Pick a scribe too. \U0001F6A8\n"
            "\n"
            "### Paging\n"
            "\n"
            "Run `scripts/page.sh`.\n"
        ),
        "references/severity.md": "| sev | meaning |\n|-----|---------|\n| 1   | outage  |\n",
        "references/deep/more.md": "# More\n\nNested reference.\n",
        "references/bom.md": "\ufeffStarts with a BOM.\n",
        "scripts/page.sh": "#!/bin/sh\necho paging\n",
        "scripts/blob.bin": bytes([0xFF, 0xFE, 0x00, 0x01]),
        "assets/logo.png": PNG,
        "assets/big.bin": BIG,
        "assets/notes.txt": "caf\u00e9 notes\n",
    },
    "long-guide": {
        "SKILL.md": "---\nname: long-guide\ndescription: A long guide whose outline is cheaper than its body.\n---\n\n# Long guide\n\n" + LONG_SECTIONS,
    },
    "dated": {
        "SKILL.md": "---\nname: dated\ndescription: A skill whose frontmatter holds a date.\nreviewed: 2024-05-01\n---\n\n# Dated\n\nReviewed once.\n",
    },
    "tiny": {
        "SKILL.md": "---\nname: tiny\ndescription: The smallest skill, for the single-skill fast path.\n---\n\n# Tiny\n\nDo the one thing.\n",
        "references/tip.md": "One tip.\n",
    },
}

CALLS: list[tuple[str, dict[str, str]]] = [
    *[(tool, {"skill_id": s}) for tool in ("get_skill_metadata", "get_skill_body", "get_skill_outline", "list_skill_resources") for s in [*SKILLS, "nope"]],
    ("get_skill_section", {"skill_id": "incident-response", "key": "preamble"}),
    ("get_skill_section", {"skill_id": "incident-response", "key": "roles"}),
    ("get_skill_section", {"skill_id": "incident-response", "key": "roles-2"}),
    ("get_skill_section", {"skill_id": "incident-response", "key": "paging"}),
    ("get_skill_section", {"skill_id": "incident-response", "key": "nope"}),
    ("get_skill_section", {"skill_id": "long-guide", "key": "step-3"}),
    ("get_skill_section", {"skill_id": "nope", "key": "roles"}),
    ("get_skill_reference", {"skill_id": "incident-response", "name": "severity.md"}),
    ("get_skill_reference", {"skill_id": "incident-response", "name": "deep/more.md"}),
    ("get_skill_reference", {"skill_id": "incident-response", "name": "bom.md"}),
    ("get_skill_reference", {"skill_id": "incident-response", "name": "deep"}),
    ("get_skill_reference", {"skill_id": "incident-response", "name": "missing.md"}),
    ("get_skill_reference", {"skill_id": "incident-response", "name": "bad\x00name"}),
    ("get_skill_reference", {"skill_id": "nope", "name": "severity.md"}),
    ("get_skill_asset", {"skill_id": "incident-response", "name": "logo.png"}),
    ("get_skill_asset", {"skill_id": "incident-response", "name": "big.bin"}),
    ("get_skill_asset", {"skill_id": "incident-response", "name": "notes.txt"}),
    ("get_skill_asset", {"skill_id": "incident-response", "name": "severity.md"}),
    ("get_skill_script", {"skill_id": "incident-response", "name": "page.sh"}),
    ("get_skill_script", {"skill_id": "incident-response", "name": "blob.bin"}),
    ("get_skill_script", {"skill_id": "incident-response", "name": "missing.sh"}),
    ("get_skill_script", {"skill_id": "tiny", "name": "page.sh"}),
]


def encoded(content: str | bytes) -> dict[str, str]:
    """A file's bytes as JSON: UTF-8 text when it is that, else base64."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    try:
        return {"text": data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(data).decode("ascii")}


def write_skills(root: Path, names: list[str]) -> None:
    for name in names:
        for path, content in SKILLS[name].items():
            target = root / name / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)


async def registry_of(root: Path) -> SkillRegistry:
    registry = SkillRegistry()
    await registry.register_all(LocalFileSystemSkillProvider(root=root))
    return registry


def answer(result) -> dict:
    texts = [block.text for block in result.content if block.type == "text"]
    return {"isError": bool(result.is_error), "text": texts[0] if len(texts) == 1 else texts}


async def serve_all(root: Path) -> dict:
    write_skills(root, list(SKILLS))
    server = create_mcp_server(await registry_of(root), name="skillshelf-goldens")
    async with Client(server) as client:
        listed = await client.list_tools()
        tools = [
            {"name": t.name, "properties": t.input_schema.get("properties", {}), "required": t.input_schema.get("required", [])}
            for t in listed.tools
        ]
        calls = [{"tool": tool, "arguments": args, **answer(await client.call_tool(tool, args))} for tool, args in CALLS]
    return {"tools": tools, "calls": calls}


async def serve_one(root: Path) -> dict:
    """A one-skill registry: resolve_fast_path applies, and the server drops the body tools."""
    write_skills(root, ["tiny"])
    registry = await registry_of(root)
    fast_path = await resolve_fast_path(registry)
    assert fast_path is not None
    server = create_mcp_server(registry, name="skillshelf-goldens", fast_path=fast_path)
    async with Client(server) as client:
        listed = await client.list_tools()
        calls = [
            {"tool": tool, "arguments": args, **answer(await client.call_tool(tool, args))}
            for tool, args in [("get_skill_reference", {"skill_id": "tiny", "name": "tip.md"}), ("list_skill_resources", {"skill_id": "tiny"})]
        ]
    return {"skill_id": fast_path.skill_id, "tokens": fast_path.tokens, "prompt": fast_path.prompt, "tools": [t.name for t in listed.tools], "calls": calls}


async def main() -> None:
    with tempfile.TemporaryDirectory() as many, tempfile.TemporaryDirectory() as one:
        served = await serve_all(Path(many))
        fast = await serve_one(Path(one))
    payload = {
        "generator": "scripts/refs/gen-mcp-tools-goldens.py",
        "library": " ".join(f"{p} {version(p)}" for p in ("agentskills-mcp-server", "agentskills-core", "agentskills-fs", "mcp")),
        "skills": {name: {path: encoded(content) for path, content in files.items()} for name, files in SKILLS.items()},
        **served,
        "fast_path": fast,
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "tools.json").write_text(json.dumps(payload, ensure_ascii=False, indent=1) + "\n", encoding="utf-8", newline="\n")
    print(f"wrote {OUT / 'tools.json'}: {len(served['calls'])} calls, {len(served['tools'])} tools")


if __name__ == "__main__":
    asyncio.run(main())
