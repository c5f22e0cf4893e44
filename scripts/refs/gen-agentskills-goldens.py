#!/usr/bin/env python3
"""Writes the agentskills-core goldens under test/goldens/agentskills/.

Builds the inputs here, runs the real library (the pinned agentskills-core in .venv-refs) on
them, and stores inputs and outputs as JSON. skillshelf's tests compare its own outlines,
sections, catalogs, fast path and resource encoding against these files, and .ci/run reruns this
script and fails when the committed files differ, so drift on either side is caught.

Run through the reference venv: `npm run refs:goldens` (or .venv-refs/bin/python this-file).
Output is deterministic: no timestamps, no host-dependent data (see the mimetypes note below).
"""

from __future__ import annotations

import asyncio
import base64
import json
import mimetypes
from pathlib import Path

# The library guesses media types with the stdlib `mimetypes`, which also reads the host's
# /etc/mime.types (so `.md` is text/markdown on one machine and unknown on another). Goldens
# must not depend on the machine, and a Worker has no /etc/mime.types, so pin the lookup to
# CPython's built-in table before the library makes its first guess.
mimetypes.knownfiles = []
mimetypes.init()

import agentskills_core  # noqa: E402
from agentskills_core import (  # noqa: E402
    DEFAULT_FAST_PATH_MAX_TOKENS,
    FAST_PATH_DROPPED_TOOLS,
    FAST_PATH_RESOURCE_INSTRUCTIONS,
    PREAMBLE_TITLE,
    WHOLE_BODY_CHEAPER_TOKENS,
    SkillProvider,
    SkillRegistry,
    classify_resource,
    encode_resource_content,
    outline_of,
    resolve_fast_path,
    split_sections,
)
from agentskills_core.skill import Skill  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test" / "goldens" / "agentskills"


def library_version() -> str:
    from importlib.metadata import version

    return version("agentskills-core")


def write(name: str, payload: dict) -> None:
    payload = {"generator": "scripts/refs/gen-agentskills-goldens.py", "library": f"agentskills-core {library_version()}", **payload}
    OUT.mkdir(parents=True, exist_ok=True)
    text = json.dumps(payload, ensure_ascii=False, indent=1) + "\n"
    (OUT / name).write_text(text, encoding="utf-8", newline="\n")


class MemoryProvider(SkillProvider):
    """An in-memory provider: metadata and body per skill id, exactly as given."""

    def __init__(self, skills: dict[str, tuple[dict, str]]) -> None:
        self._skills = skills

    async def get_metadata(self, skill_id: str) -> dict:
        return dict(self._skills[skill_id][0])

    async def get_body(self, skill_id: str) -> str:
        return self._skills[skill_id][1]

    async def get_script(self, skill_id: str, name: str) -> bytes:
        raise KeyError(name)

    async def get_asset(self, skill_id: str, name: str) -> bytes:
        raise KeyError(name)

    async def get_reference(self, skill_id: str, name: str) -> bytes:
        raise KeyError(name)


async def registry_of(skills: dict[str, tuple[dict, str]]) -> SkillRegistry:
    registry = SkillRegistry()
    provider = MemoryProvider(skills)
    if skills:
        await registry.register([(skill_id, provider) for skill_id in skills])
    return registry


# --------------------------------------------------------------------------------------------
# Outlines and sections
# --------------------------------------------------------------------------------------------

DEMO = """Read this first.

# Setup
Install the tool.

## Setup
Configure it.

```sh
# not a heading
```

### C# notes
Use dotnet.

## FAQ ##
Ask."""

LONG_PARAGRAPH = " ".join(f"word{i}" for i in range(900))

OUTLINE_BODIES: list[tuple[str, str, str]] = [
    ("worked-example", "demo", DEMO),
    ("unicode-titles", "unicode", "# Straße Café\nCoffee.\n\n## 日本語\nText.\n\n## Ünïcödé ümlaut\nMore.\n\n## ﬁle ſtuff İstanbul ΣΑΣ\nFolded."),
    ("emoji-token-counts", "emoji", "🚨🚨🚨🚨🚨\n\n# 🚨 Alert 🚨\n🔥🔥🔥🔥🔥🔥🔥🔥🔥\n\n## 👩‍👩‍👧 family\nx"),
    ("emoji-only-body", "emoji-only", "🚨🚨🚨🚨🚨"),
    ("mismatched-fences", "fences",
     "# Top\n```python\n# inside backticks\n~~~\n# still inside: tildes do not close backticks\n```\n# After\n"
     "~~~~\n# inside tildes\n```\n# still inside: backticks do not close tildes\n~~~\n## Real\n"
     "````md\n# inside four backticks\n```\n# closed by three: this is a heading\n"
     "   ```\n# indented three: fenced\n```\n    ```\n# four spaces is not a fence\n"
     "\t```\n# tab-indented fence\n```\n## Unclosed\n```\n# never closed\n## nor this"),
    ("duplicate-setup-2", "dupes", "# Setup\none\n# Setup\ntwo\n# Setup 2\nthree\n## setup\nfour"),
    ("empty-body", "empty", ""),
    ("whitespace-body", "blank", "  \n\n\t \n"),
    ("preamble-only", "prose", "Just some prose.\nNo headings at all."),
    ("blank-preamble-empty-sections", "hollow", "\n\n# One\n# Two\n\n## Three\n"),
    ("heading-forms", "forms",
     "#hashtag is prose\n####### seven is prose\n   # indented is prose\n#\tTab heading\n"
     "## C#\n## C# guide\n# #\n## Title ##\n# a #  #  \n#  \n# \u3000ideographic space\n"
     "# \ufeffbom title\n###### Six\nSetext title\n=====\n## !!!\n## ???\n## Section\n"
     "#  spaced   title   \n# trailing hashes###\n# x \\#"),
    ("line-breaks", "breaks",
     "# CRLF\r\nline\r\n\r\n# CR only\rline\r# VT\x0bline\x0c# FF\x1c# FS\x1d# GS\x1e# RS\x85# NEL"
     "\u2028# LS\u2029# PS\nend\x1f# unit separator is not a break"),
    ("long-body-advice", "long", f"# Intro\n{LONG_PARAGRAPH}\n\n## Details\n{LONG_PARAGRAPH}\n\n## Tail\nDone."),
    ("exactly-999-tokens", "edge999", "# H\n" + "x" * (999 * 4 - 4)),
    ("exactly-1000-tokens", "edge1000", "# H\n" + "x" * (1000 * 4 - 4)),
    ("only-level-two", "level2", "## A\na\n### B\nb\n#### C\nc\n##### D\nd\n###### E\ne"),
    ("trailing-newlines", "trail", "# A\n\n\n\n# B\n\n"),
]


# Seeded random bodies built line by line from the pieces the rules care about (heading and
# fence openers, indentation, every Python line break, closing hashes, non-ASCII letters, emoji),
# so combinations nobody wrote by hand are checked too. random.Random(seed) is stable across
# Python versions for choice/randint.
FUZZ_LINE_STARTS = [
    "", "", "", "# ", "## ", "### ", "#\t", "###### ", "####### ", "#", "   # ", "    # ",
    "```", "````", "~~~", "   ```", "    ```", "\t~~~", "``", "# #",
]
FUZZ_PIECES = [
    " ", "  ", "\t", "#", "##", " #", " ##  ", "`", "~", "\x1f", "\u3000", "\ufeff", "\xa0",
    "Setup", "setup 2", "C#", "Straße", "Café", "ﬁ", "ſ", "İ", "日本", "🚨", "👩\u200d👧", "x", "a b", "-", "!!", "\\",
]
FUZZ_BREAKS = ["\n", "\n", "\n", "\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


def fuzz_bodies(count: int) -> list[tuple[str, str, str]]:
    import random

    rng = random.Random(20261130)
    bodies = []
    for i in range(count):
        lines = []
        for _ in range(rng.randint(0, 14)):
            line = rng.choice(FUZZ_LINE_STARTS) + "".join(rng.choice(FUZZ_PIECES) for _ in range(rng.randint(0, 5)))
            lines.append(line + rng.choice(FUZZ_BREAKS))
        bodies.append((f"fuzz-{i:03d}", "fuzz", "".join(lines)))
    return bodies


def outline_goldens() -> dict:
    cases = []
    for name, skill_id, body in OUTLINE_BODIES + fuzz_bodies(120):
        outline = outline_of(skill_id, body)
        sections = split_sections(body)
        missing = None
        skill = Skill(skill_id, MemoryProvider({skill_id: ({}, body)}))
        try:
            asyncio.run(skill.get_section("no-such-key"))
        except Exception as exc:  # SectionNotFoundError
            missing = {"type": type(exc).__name__, "message": str(exc)}
        # The first match wins when keys repeat (the `Setup 2` quirk): record what get_section
        # returns per key, not per section.
        by_key = {}
        for section in sections:
            if section.key not in by_key:
                by_key[section.key] = asyncio.run(skill.get_section(section.key))
        cases.append(
            {
                "name": name,
                "skill_id": skill_id,
                "body": body,
                "total_tokens": outline.total_tokens,
                "whole_body_is_cheaper": outline.whole_body_is_cheaper,
                "sections": [
                    {"key": s.key, "title": s.title, "level": s.level, "tokens": ref.tokens, "text": s.text}
                    for s, ref in zip(sections, outline.sections, strict=True)
                ],
                "get_section": by_key,
                "render": outline.render(),
                "missing_key_error": missing,
            }
        )
    return {
        "constants": {"WHOLE_BODY_CHEAPER_TOKENS": WHOLE_BODY_CHEAPER_TOKENS, "PREAMBLE_TITLE": PREAMBLE_TITLE},
        "cases": cases,
    }


# --------------------------------------------------------------------------------------------
# Catalogs
# --------------------------------------------------------------------------------------------

CATALOG_SKILLS: dict[str, dict] = {
    "alpha": {
        "name": "alpha",
        "description": "Alpha <does> & \"things\" 'q'",
        "version": "1.2.0",
        "when_to_use": ["When A", "When <C> & D"],
        "when_not_to_use": ["Never B"],
        "metadata": {"tags": ["Incident", " ops "]},
    },
    "beta": {"name": "beta", "description": "Beta skill."},
    "delta": {
        "name": "delta",
        "description": "Line one\nline two\r\nline three with a tab\tand trailing space ",
        "version": "0.1.0-rc.1+build.5",
        "when_to_use": ["Multi\nline case"],
        "metadata": {"tags": ["OPS", "Straße"]},
    },
    "epsilon": {
        "name": "epsilon",
        "description": "Émoji 🚨 and 日本語 — with an em dash and ]]> and &amp; already escaped",
        "when_not_to_use": ["Only when 🔥", "Or <never>"],
        "metadata": {"tags": "not-a-list"},
    },
    "gamma": {
        "name": "gamma",
        "description": "Gamma has hints that are empty lists.",
        "when_to_use": [],
        "when_not_to_use": [],
        "metadata": {"tags": ["strasse", "data"], "owner": "team"},
    },
    "zeta-2": {
        "name": "zeta-2",
        "description": "   ",
        "metadata": {"tags": []},
    },
}

TWO_SKILLS = {k: CATALOG_SKILLS[k] for k in ("alpha", "beta")}


def catalog_variants() -> list[tuple[str, dict]]:
    variants: list[tuple[str, dict]] = [
        ("default", {}),
        ("hints-off", {"selection_hints": False}),
        ("tags-ops", {"tags": ["ops"]}),
        ("tags-casefold-strasse", {"tags": ["STRASSE"]}),
        ("tags-spaces-and-blank", {"tags": ["  Incident  ", "", "  "]}),
        ("tags-empty-list", {"tags": []}),
        ("tags-no-match", {"tags": ["nothing"]}),
        ("include", {"include": ["delta", "alpha"]}),
        ("include-unknown", {"include": ["zeta", "alpha", "omega"]}),
        ("include-empty", {"include": []}),
        ("exclude-with-unknown", {"exclude": ["beta", "nope"]}),
        ("include-and-exclude", {"include": ["alpha", "beta"], "exclude": ["alpha"]}),
        ("total-larger", {"total": 9}),
        ("total-smaller", {"total": 2}),
        ("tags-and-total", {"tags": ["ops"], "total": 6}),
        ("max-chars-zero", {"max_chars": 0}),
        ("max-chars-5", {"max_chars": 5}),
        ("max-chars-exact-empty-xml", {"max_chars": 57}),
        ("max-chars-200", {"max_chars": 200}),
        ("max-chars-600", {"max_chars": 600}),
        ("max-chars-1000", {"max_chars": 1000}),
        ("max-chars-huge", {"max_chars": 100000}),
        ("max-chars-and-total", {"max_chars": 400, "total": 20}),
        ("max-chars-hints-off", {"max_chars": 500, "selection_hints": False}),
    ]
    return variants


async def render_catalog(registry: SkillRegistry, args: dict) -> dict:
    try:
        return {"output": await registry.get_skills_catalog(**args)}
    except Exception as exc:
        return {"error": {"type": type(exc).__name__, "message": str(exc)}}


async def catalog_goldens() -> dict:
    registries = {
        "six": await registry_of({k: (v, f"# {k}\nBody of {k}.") for k, v in CATALOG_SKILLS.items()}),
        "two": await registry_of({k: (v, f"# {k}\nBody.") for k, v in TWO_SKILLS.items()}),
        "empty": await registry_of({}),
    }
    cases = []
    for fmt in ("xml", "markdown"):
        for variant, args in catalog_variants():
            cases.append({"name": f"six/{fmt}/{variant}", "registry": "six", "args": {"format": fmt, **args}})
        two = [
            ("default", {}),
            ("total-3", {"total": 3}),
            ("hints-off", {"selection_hints": False}),
            ("max-chars-5", {"max_chars": 5}),
        ]
        for variant, args in two:
            cases.append({"name": f"two/{fmt}/{variant}", "registry": "two", "args": {"format": fmt, **args}})
        empty = [
            ("default", {}),
            ("total-3", {"total": 3}),
            ("max-chars-0", {"max_chars": 0}),
            ("total-3-max-chars-10", {"total": 3, "max_chars": 10}),
            ("include-unknown", {"include": ["ghost"]}),
        ]
        for variant, args in empty:
            cases.append({"name": f"empty/{fmt}/{variant}", "registry": "empty", "args": {"format": fmt, **args}})
    cases.append({"name": "six/json/unsupported-format", "registry": "six", "args": {"format": "json"}})

    for case in cases:
        case.update(await render_catalog(registries[case["registry"]], case["args"]))

    # Exact-boundary max_chars: the full length fits, one less drops the last entry.
    for fmt in ("xml", "markdown"):
        full = await registries["six"].get_skills_catalog(format=fmt)
        for delta in (0, -1):
            args = {"format": fmt, "max_chars": len(full) + delta}
            case = {"name": f"six/{fmt}/max-chars-full{delta:+d}", "registry": "six", "args": args}
            case.update(await render_catalog(registries["six"], args))
            cases.append(case)

    skills = {"six": CATALOG_SKILLS, "two": TWO_SKILLS, "empty": {}}

    # Seeded random registries and options, so the fitting arithmetic meets shapes nobody wrote.
    import random

    rng = random.Random(3)
    text_pieces = ["a", "Zed", " ", "&", "<", ">", "&amp;", '"', "'", "\n", "\r\n", "\t", "é", "ß", "日本", "🚨", "]]>", "-", "**"]
    tag_pool = ["ops", "OPS", " Ops ", "data", "Straße", "strasse", "dev"]
    for i in range(30):
        registry: dict[str, dict] = {}
        for j in range(rng.randint(0, 6)):
            name = f"{rng.choice(['a', 'b', 'c', 'z'])}{j}"
            meta: dict = {"name": name, "description": "D" + "".join(rng.choice(text_pieces) for _ in range(rng.randint(0, 12)))}
            if rng.random() < 0.4:
                meta["version"] = rng.choice(["1.0.0", "0.0.1-alpha", "10.20.30+meta"])
            for field in ("when_to_use", "when_not_to_use"):
                if rng.random() < 0.5:
                    meta[field] = ["W" + "".join(rng.choice(text_pieces) for _ in range(rng.randint(0, 6))) for _ in range(rng.randint(0, 3))]
            if rng.random() < 0.6:
                meta["metadata"] = {"tags": rng.sample(tag_pool, rng.randint(0, 3))}
            registry[name] = meta
        key = f"fuzz-{i:02d}"
        skills[key] = registry
        reg = await registry_of({k: (v, f"# {k}") for k, v in registry.items()})
        for fmt in ("xml", "markdown"):
            args: dict = {"format": fmt}
            if rng.random() < 0.3:
                args["selection_hints"] = False
            if rng.random() < 0.3:
                args["tags"] = rng.sample(tag_pool, rng.randint(0, 2))
            if rng.random() < 0.3:
                args["total"] = rng.randint(0, 9)
            full = await reg.get_skills_catalog(**{k: v for k, v in args.items() if k != "max_chars"})
            args["max_chars"] = rng.randint(0, len(full) + 5)
            case = {"name": f"{key}/{fmt}", "registry": key, "args": args}
            case.update(await render_catalog(reg, args))
            cases.append(case)

    return {"skills": skills, "cases": cases}


# --------------------------------------------------------------------------------------------
# Fast path
# --------------------------------------------------------------------------------------------


def meta(skill_id: str) -> dict:
    return {"name": skill_id, "description": f"The {skill_id} skill."}


FAST_PATH_REGISTRIES: dict[str, dict[str, str]] = {
    "one-small": {"solo": "# Solo\nDo the thing.\n\n"},
    "one-trailing-unicode-space": {"solo": "Body with odd trailing whitespace\u3000\x1f\u2029 \t"},
    "one-at-ceiling": {"edge": "y" * (300 * 4)},
    "one-over-ceiling": {"edge": "y" * (300 * 4 + 1)},
    "one-emoji": {"emo": "🚨" * 1200},
    "three": {"aaa": "# A\nsmall", "bbb": "# B\nsmall", "ccc": "x" * 5000},
}

FAST_PATH_CASES: list[tuple[str, str, dict]] = [
    ("one-small", "one-small", {}),
    ("one-trailing-unicode-space", "one-trailing-unicode-space", {}),
    ("at-ceiling", "one-at-ceiling", {}),
    ("over-ceiling", "one-over-ceiling", {}),
    ("over-ceiling-raised", "one-over-ceiling", {"max_tokens": 301}),
    ("emoji-counted-as-code-points", "one-emoji", {}),
    ("emoji-lower-ceiling", "one-emoji", {"max_tokens": 299}),
    ("three-no-include", "three", {}),
    ("three-include-one", "three", {"include": ["bbb"]}),
    ("three-include-one-plus-unknown", "three", {"include": ["nope", "aaa"]}),
    ("three-include-two", "three", {"include": ["aaa", "bbb"]}),
    ("three-include-empty", "three", {"include": []}),
    ("three-include-large", "three", {"include": ["ccc"]}),
    ("one-include-unknown-only", "one-small", {"include": ["ghost"]}),
]


async def fast_path_goldens() -> dict:
    cases = []
    for name, reg_name, args in FAST_PATH_CASES:
        bodies = FAST_PATH_REGISTRIES[reg_name]
        registry = await registry_of({k: (meta(k), v) for k, v in bodies.items()})
        fast = await resolve_fast_path(registry, **args)
        result = None
        if fast is not None:
            result = {
                "skill_id": fast.skill_id,
                "tokens": fast.tokens,
                "prompt": fast.prompt,
                "keeps": {tool: fast.keeps(tool) for tool in (
                    "get_skill_metadata", "get_skill_body", "get_skill_outline", "get_skill_section",
                    "get_skill_reference", "get_skill_script", "get_skill_asset", "list_skill_resources")},
            }
        cases.append({"name": name, "registry": reg_name, "args": args, "result": result})
    return {
        "constants": {
            "DEFAULT_FAST_PATH_MAX_TOKENS": DEFAULT_FAST_PATH_MAX_TOKENS,
            "FAST_PATH_DROPPED_TOOLS": sorted(FAST_PATH_DROPPED_TOOLS),
            "FAST_PATH_RESOURCE_INSTRUCTIONS": FAST_PATH_RESOURCE_INSTRUCTIONS,
        },
        "registries": FAST_PATH_REGISTRIES,
        "cases": cases,
    }


# --------------------------------------------------------------------------------------------
# Resources
# --------------------------------------------------------------------------------------------

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9"
GIF_ASCII = b"GIF89a\x01\x00\x01\x00\x00\x00\x00;"  # decodes as UTF-8, still a GIF
GIF87 = b"GIF87a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00,"
WEBP = b"RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00"
RIFF_WAV = b"RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x44\xac\x00\x00\x88\x58\x01\x00\x02\x00\x10\x00"
PDF = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n"
PDF_ASCII = b"%PDF-1.4\n1 0 obj\n<<>>\nendobj\n"
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><text>Caf\xc3\xa9</text></svg>\n'


def recipe(prefix: bytes, size: int, fill: int) -> dict:
    """A large input described instead of stored: `prefix` then `fill` bytes up to `size`."""
    return {"prefix_b64": base64.b64encode(prefix).decode("ascii"), "size": size, "fill": fill}


def build(spec: dict) -> bytes:
    if "b64" in spec:
        return base64.b64decode(spec["b64"])
    prefix = base64.b64decode(spec["prefix_b64"])
    return prefix + bytes([spec["fill"]]) * (spec["size"] - len(prefix))


def inline(data: bytes) -> dict:
    return {"b64": base64.b64encode(data).decode("ascii")}


KIB64 = 64 * 1024
MIB5 = 5 * 1024 * 1024

RESOURCE_INPUTS: list[tuple[str, str, dict]] = [
    ("ascii-text", "notes.md", inline(b"# Notes\n\nA reference document.\n")),
    ("utf8-multibyte", "caf\u00e9.txt", inline("Straße Café 日本語 🚨\n".encode())),
    ("utf8-bom-kept", "bom.txt", inline(b"\xef\xbb\xbfhello")),
    ("empty-file", "empty.bin", inline(b"")),
    ("shell-script", "run.sh", inline(b"#!/bin/sh\necho conformance\n")),
    ("nul-bytes-are-valid-utf8", "zeros.bin", inline(b"\x00\x00\x00")),
    ("png", "diagram.png", inline(PNG)),
    ("png-uppercase-ext", "DIAGRAM.PNG", inline(PNG)),
    ("jpeg", "photo.jpg", inline(JPEG)),
    ("gif89-decodes-as-utf8", "tiny.gif", inline(GIF_ASCII)),
    ("gif87", "old.gif", inline(GIF87)),
    ("webp", "pic.webp", inline(WEBP)),
    ("riff-wave-not-webp", "sound.wav", inline(RIFF_WAV)),
    ("pdf-binary", "doc.pdf", inline(PDF)),
    ("pdf-ascii", "plain.pdf", inline(PDF_ASCII)),
    ("svg-text", "diagram.svg", inline(SVG)),
    ("mislabelled-png-named-txt", "notes.txt", inline(PNG)),
    ("mislabelled-png-named-jpg", "photo.jpg", inline(PNG)),
    ("mislabelled-text-named-png", "fake.png", inline(b"not really a png")),
    ("mislabelled-jpeg-named-gif", "anim.gif", inline(JPEG)),
    ("invalid-utf8-no-ext", "blob", inline(b"\xff\xfe\x00\x01garbage\x80")),
    ("surrogate-bytes-invalid", "sur.txt", inline(b"a\xed\xa0\x80b")),
    ("overlong-invalid", "over.txt", inline(b"\xc0\xaf")),
    ("truncated-sequence", "cut.txt", inline(b"caf\xc3")),
    ("unicode-name-binary", "Ünïcödé 🚨 \"q\" \\ \x01\x7f.bin", inline(b"\x80\x81")),
    ("svgz", "drawing.svgz", inline(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03")),
    ("tar-gz", "bundle.tar.gz", inline(b"\x1f\x8b\x08\x00\xff")),
    ("tgz", "bundle.TGZ", inline(b"\x1f\x8b\x08\x00\xff")),
    ("gz-unknown-inner", "data.gz", inline(b"\x1f\x8b\xff")),
    ("compress-case-sensitive", "old.Z", inline(b"\x1f\x9d\x90")),
    ("dotfile-no-ext", ".png", inline(b"\x80")),
    ("double-dot-name", "..png", inline(b"\x80")),
    ("path-with-dir", "refs.d/sub/x.json", inline(b"\x80")),
    ("dot-in-dir-only", "a.png/file", inline(b"\x80")),
    ("scheme-like-name", "img:chart.png", inline(b"\x80")),
    ("data-url-name", "data:image/svg+xml;base64,AAAA", inline(b"\x80")),
    ("data-url-no-comma", "data:image/png", inline(b"\x80")),
    ("data-url-param", "data:charset=utf-8,x", inline(b"\x80")),
    ("unknown-ext", "model.safetensors", inline(b"\x80\x00")),
    ("mixed-case-ext", "Sheet.XlS", inline(b"\xd0\xcf\x11\xe0")),
    ("binary-at-64k-limit", "blob-64k.bin", recipe(b"\xff", KIB64, 0xAB)),
    ("binary-over-64k", "blob-64k1.bin", recipe(b"\xff", KIB64 + 1, 0xAB)),
    ("text-over-64k-passes", "big.txt", recipe(b"", KIB64 + 10, 0x61)),
    ("png-at-5mib", "big.png", recipe(PNG, MIB5, 0)),
    ("png-over-5mib", "huge.png", recipe(PNG, MIB5 + 1, 0)),
]

ENCODE_OPTION_CASES = [
    ("limit-zero-binary", "x.png", inline(PNG), {"max_inline_binary_bytes": 0}),
    ("limit-zero-text", "x.txt", inline(b"text"), {"max_inline_binary_bytes": 0}),
    ("limit-ten-fits", "x.bin", inline(b"\xff" * 10), {"max_inline_binary_bytes": 10}),
    ("limit-ten-over", "x.bin", inline(b"\xff" * 11), {"max_inline_binary_bytes": 10}),
    ("limit-negative", "x.bin", inline(b"\xff"), {"max_inline_binary_bytes": -1}),
]

CLASSIFY_OPTION_CASES = [
    ("image-limit-zero", "x.png", inline(PNG), {"max_inline_image_bytes": 0}),
    ("image-limit-exact", "x.png", inline(PNG), {"max_inline_image_bytes": len(PNG)}),
    ("image-limit-one-short", "x.png", inline(PNG), {"max_inline_image_bytes": len(PNG) - 1}),
    ("image-limit-negative", "x.png", inline(PNG), {"max_inline_image_bytes": -1}),
]


def run(fn, *args, **kwargs) -> dict:
    try:
        value = fn(*args, **kwargs)
    except Exception as exc:
        return {"error": {"type": type(exc).__name__, "message": str(exc)}}
    if hasattr(value, "renderable"):
        value = {
            "name": value.name,
            "media_type": value.media_type,
            "size_bytes": value.size_bytes,
            "is_text": value.is_text,
            "renderable": value.renderable,
        }
    return {"output": value}


def digest_if_large(result: dict) -> dict:
    """Keeps the goldens reviewable: an output over 8 KiB is stored as its SHA-256 and length."""
    output = result.get("output")
    if isinstance(output, str) and len(output) > 8192:
        import hashlib

        return {"output_sha256": hashlib.sha256(output.encode("utf-8")).hexdigest(), "output_length": len(output)}
    return result


def resource_goldens() -> dict:
    cases = []
    for name, file_name, spec in RESOURCE_INPUTS:
        data = build(spec)
        cases.append(
            {
                "name": name,
                "file_name": file_name,
                "bytes": spec,
                "options": {},
                "encode": digest_if_large(run(encode_resource_content, file_name, data)),
                "classify": run(classify_resource, file_name, data),
            }
        )
    for name, file_name, spec, options in ENCODE_OPTION_CASES:
        data = build(spec)
        cases.append({"name": name, "file_name": file_name, "bytes": spec, "options": options,
                      "encode": run(encode_resource_content, file_name, data, **options)})
    for name, file_name, spec, options in CLASSIFY_OPTION_CASES:
        data = build(spec)
        cases.append({"name": name, "file_name": file_name, "bytes": spec, "options": options,
                      "classify": run(classify_resource, file_name, data, **options)})
    # Every extension of the built-in media-type table, so our copy of the lookup is checked
    # entry by entry (encode only uses the name, so one invalid byte is enough).
    guesses = {}
    for ext in sorted(mimetypes.types_map):
        envelope = json.loads(encode_resource_content("f" + ext, b"\x80"))
        guesses["f" + ext] = envelope["media_type"]
    return {"cases": cases, "media_type_guesses": guesses}


# --------------------------------------------------------------------------------------------
# Casefold: every code point Python's str.casefold changes (keys and tags depend on it).
# --------------------------------------------------------------------------------------------


def casefold_goldens() -> dict:
    changed = {}
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        ch = chr(cp)
        folded = ch.casefold()
        if folded != ch:
            changed[f"{cp:X}"] = folded
    import unicodedata

    return {"unicode_version": unicodedata.unidata_version, "changed": changed}


def main() -> None:
    write("outlines.json", outline_goldens())
    write("catalogs.json", asyncio.run(catalog_goldens()))
    write("fast-path.json", asyncio.run(fast_path_goldens()))
    write("resources.json", resource_goldens())
    write("casefold.json", casefold_goldens())
    print(f"goldens: wrote {len(list(OUT.glob('*.json')))} files to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
