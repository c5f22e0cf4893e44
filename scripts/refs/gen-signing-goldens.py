"""Writes test/goldens/signing/*.json from agentskills-core 0.7.0's trust module.

- snapshots.json: content_revision and signature_payload (with its Ed25519 signature under the
  reference test-vector key) for several snapshots, incl. non-ASCII paths and a quoted version;
  and the reference's refusal of a version that is not a string.
- vector.json: the test vector from docs' reference note (key = sha256(b"throwaway-test-key") as
  seed): the public key and the signature of the note's payload, computed here, plus
  TrustPolicy.verify's verdicts on them.
- generations.json: skillshelf-generation-v1 payloads (json.dumps with sort_keys and ASCII
  escapes, the same rules the reference uses for snapshots) and their signatures.
Inputs live here; outputs come only from the library (and cryptography for signing).
Run via `npm run refs:goldens`.
"""
import base64
import hashlib
import json
import pathlib

from agentskills_core.snapshots import SkillFile, SkillSnapshot
from agentskills_core.trust import (
    DetachedSignature,
    TrustPolicy,
    VerificationError,
    content_revision,
    signature_payload,
)
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

OUT = pathlib.Path(__file__).resolve().parents[2] / "test" / "goldens" / "signing"
SEED = hashlib.sha256(b"throwaway-test-key").digest()
KEY = Ed25519PrivateKey.from_private_bytes(SEED)
PUBLIC = KEY.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
ORIGIN = "https://shelf.example.test"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def skill_md(name: str, extra: str = "") -> bytes:
    return f"---\nname: {name}\ndescription: A skill for the signing goldens.\n{extra}---\n\n# {name}\n\nDo the thing.\n".encode()


SNAPSHOTS = [
    ("pdf-tools", {"SKILL.md": skill_md("pdf-tools")}),
    (
        "pdf-tools",
        {
            "SKILL.md": skill_md("pdf-tools", 'version: "1.2.0"\n'),
            "assets/logo.png": bytes(range(84)),
            "references/café-notes.md": "Notes about café.\nÉté.\n".encode(),
        },
    ),
    (
        "unicode-paths",
        {
            "SKILL.md": skill_md("unicode-paths", 'version: "0.1.0-rc.1"\n'),
            "references/\u65e5\u672c\u8a9e.md": "日本語\n".encode(),
            "references/\U0001f600-smile.md": b"astral\n",
            "references/\uff5e-fullwidth.md": b"bmp after surrogates in UTF-16\n",
            "references/quote\"and\ttab\x7f.md": b"escapes\n",
            "Z-upper.md": b"upper sorts before lower\n",
        },
    ),
    ("empty-file", {"SKILL.md": skill_md("empty-file"), "scripts/run.sh": b""}),
]


def snapshot_golden(skill_id: str, files: dict[str, bytes]) -> dict:
    snapshot = SkillSnapshot(skill_id, tuple(SkillFile(path, data) for path, data in files.items()))
    payload = signature_payload(snapshot, origin=ORIGIN)
    signature = KEY.sign(payload)
    verified = TrustPolicy(ORIGIN, trusted_keys={"test-key": PUBLIC}).verify(snapshot, DetachedSignature("test-key", signature))
    return {
        "skill_id": skill_id,
        "origin": ORIGIN,
        "files": [{"path": path, "data_base64": b64(data)} for path, data in files.items()],
        "revision": content_revision(snapshot),
        "payload": payload.decode("ascii"),
        "signature": b64(signature),
        "verified": {"status": verified.status, "publisher": verified.publisher, "revision": verified.revision},
    }


def non_string_versions() -> list[dict]:
    out = []
    for source in ["1.0", "2024-01-15", "3"]:
        snapshot = SkillSnapshot("bad-version", (SkillFile("SKILL.md", skill_md("bad-version", f"version: {source}\n")),))
        try:
            signature_payload(snapshot, origin=ORIGIN)
            raise SystemExit(f"expected a refusal for version {source}")
        except (VerificationError, ValueError) as error:
            out.append({"version_source": source, "error_type": type(error).__name__, "error": str(error)})
    return out


def vector() -> dict:
    payload = b'{"contract":"agentskills-snapshot-v1","origin":"https://shelf.example.test","revision":"sha256:2af2626a305608bac8efa53699d6ddfe8713fc9ae41e173db6b0d67c36dcb5f8","skillId":"pdf-tools","version":null}'
    return {"seed_hex": SEED.hex(), "public_key": b64(PUBLIC), "payload": payload.decode("ascii"), "signature": b64(KEY.sign(payload))}


GENERATIONS = [
    {"origin": ORIGIN, "generation": "0" * 64, "skills": []},
    {
        "origin": "https://shelf.example.test/é",
        "generation": hashlib.sha256(b"generation").hexdigest(),
        "skills": [["zeta", "sha256:" + "1" * 64], ["alpha", "sha256:" + "2" * 64], ["\uff5e-tilde", "sha256:" + "3" * 64], ["\U0001f600", "sha256:" + "4" * 64]],
    },
]


def generation_golden(claim: dict) -> dict:
    skills = sorted(claim["skills"], key=lambda s: s[0])
    payload = json.dumps(
        {"contract": "skillshelf-generation-v1", "origin": claim["origin"], "generation": claim["generation"], "skills": skills},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,
    ).encode("ascii")
    return {**claim, "payload": payload.decode("ascii"), "signature": b64(KEY.sign(payload))}


def write(name: str, value) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / name).write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


write("snapshots.json", {"public_key": b64(PUBLIC), "snapshots": [snapshot_golden(i, f) for i, f in SNAPSHOTS], "non_string_versions": non_string_versions()})
write("vector.json", vector())
write("generations.json", {"public_key": b64(PUBLIC), "generations": [generation_golden(g) for g in GENERATIONS]})
