"""The curated shelf as `npm start` signs it, checked by agentskills-core 0.7.0's own verifier.

Each skill is captured whole through agentskills-http 0.7 (lossless file access, the way an agent
reads a shelf) from the running Worker, and `TrustPolicy(origin, trusted_keys={key_id: raw32},
require_signature=True).verify(snapshot, DetachedSignature(key_id, signature))` must answer
"verified" with the signature the Worker serves at /v1/skills/<name>/signature; a snapshot with a
changed byte, another origin or another key must be refused. The generation signature in /v1/shelf
must verify over the payload rebuilt from agentskills-core's content_revision of every captured skill.

The trusted key comes from run.ts (SKILLSHELF_SIGNING_KEY_ID / SKILLSHELF_SIGNING_PUBLIC_KEY: the
throwaway key npm start created), never from the server: the keys.json the Worker serves must
merely agree with it.
"""

from __future__ import annotations

import base64
import json
import os
import urllib.request
import warnings

import pytest
from agentskills_core import SkillRegistry
from agentskills_core.snapshots import SkillFile, SkillSnapshot, capture_skill
from agentskills_core.trust import DetachedSignature, TrustPolicy, VerificationError, content_revision
from agentskills_http import HTTPStaticFileSkillProvider
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

ORIGIN = os.environ["SKILLSHELF_INTEROP_BASE"].rstrip("/")
KEY_ID = os.environ["SKILLSHELF_SIGNING_KEY_ID"]
PUBLIC_KEY = base64.b64decode(os.environ["SKILLSHELF_SIGNING_PUBLIC_KEY"], validate=True)


def _get_json(path: str):
    with urllib.request.urlopen(ORIGIN + path, timeout=30) as res:  # noqa: S310 - loopback test server
        return json.loads(res.read())


async def _snapshots() -> dict[str, SkillSnapshot]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # plain HTTP on loopback
        provider = HTTPStaticFileSkillProvider(ORIGIN + "/skills", skill_manifest=True, file_manifest=True, allow_private_network=True, max_retries=0)
    registry = SkillRegistry()
    try:
        names = await registry.register_all(provider)
        return {name: await capture_skill(registry.get_skill(name)) for name in names}
    finally:
        await provider.aclose()


def _policy(origin: str = ORIGIN, keys: dict[str, bytes] | None = None) -> TrustPolicy:
    return TrustPolicy(origin, trusted_keys={KEY_ID: PUBLIC_KEY} if keys is None else keys, require_signature=True)


def _proof(name: str) -> DetachedSignature:
    served = _get_json(f"/v1/skills/{name}/signature")
    assert served["key_id"] == KEY_ID and served["origin"] == ORIGIN
    return DetachedSignature(served["key_id"], base64.b64decode(served["signature"], validate=True))


def test_the_served_keys_agree_with_the_key_run_ts_trusts():
    keys = _get_json("/.well-known/skillshelf/keys.json")
    assert keys == {"origin": ORIGIN, "keys": [{"key_id": KEY_ID, "public_key": base64.b64encode(PUBLIC_KEY).decode(), "status": "active"}]}


@pytest.mark.asyncio
async def test_trust_policy_verifies_every_curated_skill():
    snapshots = await _snapshots()
    assert len(snapshots) >= 12
    for name, snapshot in snapshots.items():
        identity = _policy().verify(snapshot, _proof(name))
        assert (identity.status, identity.publisher, identity.origin) == ("verified", KEY_ID, ORIGIN), name
        assert identity.revision == _get_json(f"/v1/skills/{name}/signature")["revision"], name


@pytest.mark.asyncio
async def test_trust_policy_refuses_a_changed_byte_another_origin_and_another_key():
    snapshots = await _snapshots()
    name, snapshot = next(iter(snapshots.items()))
    proof = _proof(name)
    changed = SkillSnapshot(
        snapshot.skill_id,
        tuple(SkillFile(f.path, f.data + b" " if f.path == "SKILL.md" else f.data) for f in snapshot.files),
    )
    other_key = Ed25519PrivateKey.generate().public_key().public_bytes_raw()
    for policy, target in [
        (_policy(), changed),
        (_policy(origin="https://elsewhere.example"), snapshot),
        (_policy(keys={KEY_ID: other_key}), snapshot),
        (_policy(keys={"another-id": PUBLIC_KEY}), snapshot),
    ]:
        with pytest.raises(VerificationError):
            policy.verify(target, proof)


@pytest.mark.asyncio
async def test_the_generation_signature_verifies_over_the_captured_revisions():
    snapshots = await _snapshots()
    shelf = _get_json("/v1/shelf")
    signed = shelf["signature"]
    assert signed["key_id"] == KEY_ID
    payload = json.dumps(
        {
            "contract": "skillshelf-generation-v1",
            "origin": ORIGIN,
            "generation": shelf["generation"],
            "skills": sorted([name, content_revision(s)] for name, s in snapshots.items()),
        },
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,
    ).encode("ascii")
    assert json.loads(payload) == signed["payload"]
    Ed25519PublicKey.from_public_bytes(PUBLIC_KEY).verify(base64.b64decode(signed["signature"], validate=True), payload)
