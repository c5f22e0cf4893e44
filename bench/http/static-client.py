"""Counts the requests agentskills-http needs to build a catalog from a shelf's static layout.

bench/http.bench.ts runs this with the reference virtual environment (.venv-refs, npm run refs:setup)
when it exists: HTTPStaticFileSkillProvider(<shelf>/skills, skill_manifest=True) discovers the skills
from the root index.json, then reads each one's frontmatter (get_metadata, one SKILL.md each), which is
what a catalog needs. Prints {"requests": n, "skills": n, "seconds": s} on one line.

usage: python static-client.py <shelf origin>
"""

import asyncio
import json
import sys
import time
import warnings

import httpx
from agentskills_http import HTTPStaticFileSkillProvider


async def main(origin: str) -> None:
    requests = 0

    async def count(_request: httpx.Request) -> None:
        nonlocal requests
        requests += 1

    warnings.simplefilter("ignore")  # plain HTTP on loopback
    client = httpx.AsyncClient(follow_redirects=False, trust_env=False, event_hooks={"request": [count]})
    provider = HTTPStaticFileSkillProvider(f"{origin}/skills", client=client, skill_manifest=True, allow_private_network=True)
    started = time.perf_counter()
    async with client:
        names = await provider.discover()
        for name in names:
            await provider.get_metadata(name)
    print(json.dumps({"requests": requests, "skills": len(names), "seconds": time.perf_counter() - started}))


asyncio.run(main(sys.argv[1].rstrip("/")))
