"""Writes test/goldens/abstractskill/*.json from the real abstractskill package (0.3.2).

- verdicts.json: evaluate_trust over every level x method cap x advisory anchor x match
  x severity x status x has_scripts, plus query spellings and multi-record tie-breaks.
- records.json: TrustRegistry.load / load_catalog on whole files, and from_dict on every entry
  (which entries AbstractSkill refuses, with its message), plus the method-cap matrix.
- selection.json: select_skills_for_context over two filesystem roots (pins, shadows, broken
  copies, advisories, declared requirements) and the <available_skills> block of each result.
- prompt.json: format_available_skills_xml.
- tools.json / demand.json: effective_tools and derive_demand tables.
- seed.json: seed_registry over before-folders (every outcome bucket), run twice.
Inputs are built here; every expected output comes from the library. Run via `npm run refs:goldens`.
"""
import hashlib
import json
import logging
import os
import pathlib
import shutil
import subprocess
import tempfile

import abstractskill
import abstractskill.bundled as bundled
import yaml
from abstractskill import (
    AdvisoryEntry,
    GuidanceEntry,
    SkillMetadata,
    SkillRequires,
    TrustRegistry,
    ValidationRecord,
    derive_demand,
    effective_tools,
    evaluate_trust,
    format_available_skills_xml,
    load_catalog,
    seed_registry,
    select_skills_for_context,
)
from abstractskill.catalog import CatalogEntry

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "test" / "goldens" / "abstractskill"
VERSION = abstractskill.__version__ if hasattr(abstractskill, "__version__") else "0.3.2"


def sha(text):
    return hashlib.sha256(text.encode()).hexdigest()


def write(name, data, one_line_items=False):
    """JSON with the generator named; with one_line_items, a list of cases written one per line."""
    OUT.mkdir(parents=True, exist_ok=True)
    head = {"generator": "scripts/refs/gen-abstractskill-goldens.py", "abstractskill": VERSION}
    if one_line_items:
        (key, items), = data.items()
        lines = ",\n".join(json.dumps(item, ensure_ascii=False, default=str) for item in items)
        text = json.dumps(head, ensure_ascii=False)[:-1] + f', "{key}": [\n{lines}\n]}}'
    else:
        text = json.dumps({**head, **data}, indent=1, ensure_ascii=False, default=str)
    (OUT / name).write_text(text + "\n", encoding="utf-8")


def verdict_dict(v, validations, advisories):
    """A verdict with its records named by their index in the case's input lists."""
    return {
        "level": v.level.value,
        "blocked": v.blocked,
        "requires_review": v.requires_review,
        "attachable": v.attachable,
        "do_not_use": v.do_not_use,
        "reasons": list(v.reasons),
        "warnings": list(v.warnings),
        "advisories": [next(i for i, a in enumerate(advisories) if a is m) for m in v.advisories],
        "validation": None if v.validation is None else next(i for i, r in enumerate(validations) if r is v.validation),
    }


# ----------------------------------------------------------------------------------------------
# verdicts

H_A = sha("tree-a")
H_B = sha("tree-b")
NAME = "alpha"
SOURCE = "acme/skills"

LEVEL_RECORDS = {
    "community": {"method": "manual-review"},
    "adopted": {"method": "first-party-adoption"},
    "audited": {"method": "external-audit", "evidence": {"reference": "https://audit.example/alpha"}},
    "first_party": {"method": "first-party"},
}
AUDITED_SIM = {"method": "simulated-execution", "evidence": {"epochs": 3, "models": ["m1", "m2"]}}


def record(level, method_extra, tree_hash=H_A, name=NAME, source=SOURCE, **extra):
    data = {"name": name, "source": source, "tree_hash": tree_hash, "level": level,
            "validated_by": "reviewer", "validated_at": "2026-07-11", **method_extra, **extra}
    return data


def advisory(anchor, name_match, source_match, severity, status, **extra):
    data = {
        "name": NAME if name_match == "same" else "other-skill",
        "source": SOURCE if source_match == "same" else SOURCE.upper(),
        "official_intent": "helps with alpha tasks",
        "hidden_issue": f"exfiltrates secrets ({anchor}/{name_match}/{source_match}/{severity}/{status})",
        "severity": severity,
        "reference": "https://advisories.example/1",
        "status": status,
    }
    if anchor == "hash_same":
        data["tree_hash"] = H_A
    elif anchor == "hash_other":
        data["tree_hash"] = H_B
    if status == "withdrawn":
        data["withdrawn_reason"] = "false positive"
    data.update(extra)
    return data


def verdict_case(label, validations, advisories, query):
    vrecs = [ValidationRecord.from_dict(v) for v in validations]
    arecs = [AdvisoryEntry.from_dict(a) for a in advisories]
    registry = TrustRegistry(validations=vrecs, advisories=arecs)
    verdict = evaluate_trust(registry, **query)
    return {"label": label, "validations": validations, "advisories": advisories, "query": query,
            "verdict": verdict_dict(verdict, vrecs, arecs)}


def gen_verdicts():
    cases = []
    base_query = {"tree_hash": H_A, "name": NAME, "source": SOURCE}
    levels = [None, *LEVEL_RECORDS]
    advisory_variants = [None]
    for anchor in ("hash_same", "hash_other", "none"):
        for name_match in ("same", "other"):
            for source_match in ("same", "case"):
                for severity in ("critical", "high", "medium", "low"):
                    for status in ("active", "withdrawn"):
                        advisory_variants.append((anchor, name_match, source_match, severity, status))
    for level in levels:
        validations = [] if level is None else [record(level, LEVEL_RECORDS[level])]
        for variant in advisory_variants:
            advisories = [] if variant is None else [advisory(*variant)]
            for has_scripts in (False, True):
                label = f"level={level} advisory={variant} scripts={has_scripts}"
                cases.append(verdict_case(label, validations, advisories, {**base_query, "has_scripts": has_scripts}))
    first = [record("first_party", LEVEL_RECORDS["first_party"])]
    crit = [advisory("hash_same", "other", "case", "low", "active")]
    name_crit = [advisory("none", "same", "same", "critical", "active")]
    name_low = [advisory("none", "same", "same", "low", "active")]
    # Query spellings: normalisation of hash, name and source; absent inputs.
    spellings = [
        ("uppercase hash still blocks", first, crit, {"tree_hash": H_A.upper(), "name": NAME, "source": SOURCE}),
        ("padded hash keeps validation", first, [], {"tree_hash": f"  {H_A}\n", "name": NAME, "source": SOURCE}),
        ("uppercase name matches advisory", first, name_crit, {"tree_hash": H_A, "name": "ALPHA", "source": SOURCE}),
        ("padded source matches advisory", first, name_crit, {"tree_hash": H_A, "name": NAME, "source": f" {SOURCE} "}),
        ("source case differs: no match", first, name_crit, {"tree_hash": H_A, "name": NAME, "source": SOURCE.lower().upper()}),
        ("no source: name advisory cannot match", first, name_crit, {"tree_hash": H_A, "name": NAME, "source": None}),
        ("no name: name advisory cannot match", first, name_crit, {"tree_hash": H_A, "name": None, "source": SOURCE}),
        ("no tree hash", first, [], {"tree_hash": None, "name": NAME, "source": SOURCE}),
        ("empty tree hash", first, [], {"tree_hash": "", "name": NAME, "source": SOURCE}),
        ("no tree hash, hash advisory cannot match", first, crit, {"tree_hash": None, "name": NAME, "source": SOURCE}),
        ("no tree hash, low name advisory", [], name_low, {"tree_hash": None, "name": NAME, "source": SOURCE, "has_scripts": True}),
        ("other hash: record does not apply", first, [], {"tree_hash": H_B, "name": NAME, "source": SOURCE}),
    ]
    for label, v, a, q in spellings:
        cases.append(verdict_case(label, v, a, q))
    # Several records and advisories at once.
    multi = [
        ("highest level wins", [record("community", LEVEL_RECORDS["community"]), record("first_party", LEVEL_RECORDS["first_party"]),
                                record("adopted", LEVEL_RECORDS["adopted"])], []),
        ("tie keeps the first record", [record("adopted", LEVEL_RECORDS["adopted"], validated_by="first"),
                                        record("adopted", {"method": "manual-review"}, validated_by="second")], []),
        ("simulated-execution audit", [record("audited", AUDITED_SIM)], []),
        ("record for another hash ignored", [record("first_party", LEVEL_RECORDS["first_party"], tree_hash=H_B)], []),
        ("two blocking advisories", first, [advisory("hash_same", "other", "same", "low", "active", advisory_id="A-1"),
                                            advisory("none", "same", "same", "high", "active", advisory_id="A-2")]),
        ("blocking and non-blocking", first, [advisory("none", "same", "same", "medium", "active"),
                                              advisory("none", "same", "same", "critical", "active")]),
        ("two non-blocking", first, [advisory("none", "same", "same", "medium", "active"),
                                     advisory("none", "same", "same", "low", "active")]),
        ("withdrawn critical hash match and active low", first, [advisory("hash_same", "same", "same", "critical", "withdrawn"),
                                                                 advisory("none", "same", "same", "low", "active")]),
        ("hash-other critical still matches by name", first, [advisory("hash_other", "same", "same", "critical", "active")]),
    ]
    for label, v, a in multi:
        for has_scripts in (False, True):
            cases.append(verdict_case(f"{label} scripts={has_scripts}", v, a, {"tree_hash": H_A, "name": NAME, "source": SOURCE, "has_scripts": has_scripts}))
    write("verdicts.json", {"cases": cases}, one_line_items=True)


# ----------------------------------------------------------------------------------------------
# records

class Capture(logging.Handler):
    def __init__(self):
        super().__init__()
        self.messages = []

    def emit(self, rec):
        self.messages.append(rec.getMessage())


def load_file(kind, text):
    """Whole-file load: AbstractSkill's outcome (entries or the first error) and warnings."""
    tmp = pathlib.Path(tempfile.mkdtemp())
    try:
        path = tmp / f"{kind}.yaml"
        path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
        handler = Capture()
        logger = logging.getLogger("abstractskill")
        logger.addHandler(handler)
        try:
            if kind == "catalog":
                entries = [e.to_dict() for e in load_catalog(path).entries]
            else:
                registry = TrustRegistry.load(**{f"{kind}_path": path})
                entries = [e.to_dict() for e in getattr(registry, kind)]
            result = {"ok": True, "entries": entries}
        except Exception as exc:  # noqa: BLE001 - the message is the golden
            result = {"ok": False, "error": str(exc).replace(str(path), f"<{kind}.yaml>")}
        finally:
            logger.removeHandler(handler)
        result["warnings"] = [m.replace(str(path), f"<{kind}.yaml>") for m in handler.messages]
        return result
    finally:
        shutil.rmtree(tmp)


ENTRY_CLASS = {"validations": ValidationRecord, "advisories": AdvisoryEntry, "guidance": GuidanceEntry, "catalog": CatalogEntry}


def per_entry(kind, text):
    """from_dict on every list entry on its own: which ones AbstractSkill refuses, and why."""
    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError:
        return None
    key = "skills" if kind == "catalog" else kind
    if not isinstance(data, dict) or not isinstance(data.get(key), list):
        return None
    out = []
    for raw in data[key]:
        try:
            out.append({"ok": True, "entry": ENTRY_CLASS[kind].from_dict(raw).to_dict()})
        except Exception as exc:  # noqa: BLE001
            out.append({"ok": False, "error": str(exc)})
    return out


GOOD_HASH = sha("good")
VAL_OK = f"""name: Adr
  source: ' codex-skills (maintainer) '
  tree_hash: '{GOOD_HASH.upper()}'
  level: adopted
  method: first-party-adoption
  validated_by: skill
  validated_at: 2026-07-11"""


def validation_entry(**fields):
    base = {"name": "adr", "source": "first-party", "tree_hash": GOOD_HASH, "level": "first_party", "method": "first-party",
            "validated_by": "skill", "validated_at": "2026-07-11"}
    base.update(fields)
    return {k: v for k, v in base.items() if v is not DROP}


DROP = object()

RECORD_FILES = [
    ("validations", "empty file", ""),
    ("validations", "no key", "other: []\n"),
    ("validations", "empty list", "validations: []\n"),
    ("validations", "null list", "validations:\n"),
    ("validations", "not a list", "validations: {a: 1}\n"),
    ("validations", "top level list", "- a\n- b\n"),
    ("validations", "bad yaml", "validations: [\n"),
    ("validations", "normalised and typed", f"validations:\n- {VAL_OK}\n  evidence: {{parser_roundtrip: yes, files: 5, ratio: 1.0}}\n  notes: 12\n  activation_description: ''\n  audience: either\n  delivered_via_map: 'on'\n"),
    ("validations", "three bad entries in one file", "validations:\n- 7\n- {name: x}\n- name: y\n  level: first_party\n" +
     "  source: s\n  tree_hash: nothex\n  method: first-party\n  validated_by: me\n  validated_at: now\n"),
    ("advisories", "empty list", "advisories: []\n"),
    ("advisories", "valid and withdrawn", f"advisories:\n- name: Evil\n  source: ' market '\n  official_intent: a\n  hidden_issue: b\n  severity: high\n  reference: r\n  tree_hash: '{GOOD_HASH.upper()}'\n  advisory_id: X-1\n  discovered_at: 2026-07-01\n- name: evil\n  source: market\n  official_intent: a\n  hidden_issue: b\n  severity: low\n  reference: r\n  status: withdrawn\n  withdrawn_reason: wrong\n  withdrawn_at: 2026-07-02\n"),
    ("advisories", "duplicate advisory id", "advisories:\n- {name: a, source: s, official_intent: i, hidden_issue: h, severity: low, reference: r, advisory_id: D-1}\n- {name: b, source: s, official_intent: i, hidden_issue: h, severity: low, reference: r, advisory_id: D-1}\n"),
    ("guidance", "valid", "guidance:\n- {guidance_id: G-1, title: t, risk_class: c, detail: d, severity: critical, reference: r}\n"),
    ("guidance", "duplicate id", "guidance:\n- {guidance_id: G-1, title: t, risk_class: c, detail: d, severity: low, reference: r}\n- {guidance_id: G-1, title: t, risk_class: c, detail: d, severity: low, reference: r}\n"),
    ("catalog", "no skills key", "version: '1.0'\n"),
    ("catalog", "valid", f"version: '2026.10.01'\nskills:\n- name: tdd\n  source: obra/superpowers\n  repo: obra/superpowers\n  upstream_ref: {'a' * 40}\n  subdir: skills/tdd\n  license: MIT\n  archetype: procedure\n  risk: low\n  improves: tests first\n  vendored: 'yes'\n  expected_tree_hash: '{GOOD_HASH.upper()}'\n  evidence: [https://example.com]\n"),
    ("catalog", "duplicate name", f"skills:\n- {{name: a, source: s, repo: o/r, upstream_ref: {'b' * 40}, subdir: x, license: mit, archetype: meta, risk: low, improves: i}}\n- {{name: a, source: s, repo: o/r, upstream_ref: {'b' * 40}, subdir: x, license: mit, archetype: meta, risk: low, improves: i}}\n"),
]

# Single entries, each loaded on its own (one file per entry): the rule AbstractSkill applies first.
ENTRY_CASES = {
    "validations": [
        "7", "[a, b]", "{}",
        *[json.dumps(validation_entry(level=lv)) for lv in ("blocked", "unverified", "root", None)],
        json.dumps(validation_entry(level=DROP)),
        json.dumps(validation_entry(source=DROP, method=DROP)),
        json.dumps(validation_entry(evidence=[1])),
        json.dumps(validation_entry(name="  ")),
        json.dumps(validation_entry(source="")),
        json.dumps(validation_entry(validated_by=" ")),
        json.dumps(validation_entry(validated_at="")),
        json.dumps(validation_entry(tree_hash="abc")),
        json.dumps(validation_entry(tree_hash=GOOD_HASH[:-1] + "g")),
        json.dumps(validation_entry(method="vibes")),
        json.dumps(validation_entry(method="simulated-execution", level="audited")),
        json.dumps(validation_entry(method="simulated-execution", level="audited", evidence={"epochs": True, "models": ["m"]})),
        json.dumps(validation_entry(method="simulated-execution", level="audited", evidence={"epochs": 2, "models": []})),
        json.dumps(validation_entry(method="simulated-execution", level="audited", evidence={"epochs": 2, "models": ["m"]})),
        json.dumps(validation_entry(method="external-audit", level="audited")),
        json.dumps(validation_entry(method="external-audit", level="audited", evidence={"reference": "https://a"})),
        json.dumps(validation_entry(audience="everyone")),
        json.dumps(validation_entry(audience="host", delivered_via_map=True)),
        json.dumps(validation_entry(audience="entity", delivered_via_map="maybe")),
        json.dumps(validation_entry(audience="entity", delivered_via_map="Yes")),
        json.dumps(validation_entry(delivered_via_map=0)),
        json.dumps(validation_entry(name=None, validated_at=None)),
        "{name: ok, source: s, tree_hash: " + GOOD_HASH + ", level: community, method: manual-review, validated_by: 1.0, validated_at: 2026-07-11 10:00:00}",
    ],
    "advisories": [
        "7",
        json.dumps({"name": "a", "source": "s"}),
        json.dumps({"name": "a", "source": "s", "official_intent": " ", "hidden_issue": "h", "severity": "low", "reference": "r"}),
        json.dumps({"name": "a", "source": "s", "official_intent": "i", "hidden_issue": "h", "severity": "urgent", "reference": "r"}),
        json.dumps({"name": "a", "source": "s", "official_intent": "i", "hidden_issue": "h", "severity": "low", "reference": "r", "tree_hash": "xyz"}),
        json.dumps({"name": "a", "source": "s", "official_intent": "i", "hidden_issue": "h", "severity": "low", "reference": "r", "status": "paused"}),
        json.dumps({"name": "a", "source": "s", "official_intent": "i", "hidden_issue": "h", "severity": "low", "reference": "r", "status": "withdrawn"}),
        json.dumps({"name": "a", "source": "s", "official_intent": "i", "hidden_issue": "h", "severity": "low", "reference": "r", "status": "withdrawn", "withdrawn_reason": "  "}),
        json.dumps({"name": None, "source": "s", "official_intent": "i", "hidden_issue": "h", "severity": "low", "reference": "r", "tree_hash": ""}),
    ],
    "guidance": [
        "7",
        json.dumps({"guidance_id": "G", "title": "t", "risk_class": "c", "detail": "d", "reference": "r"}),
        json.dumps({"guidance_id": "G", "title": "t", "risk_class": "c", "detail": "d", "severity": "severe", "reference": "r"}),
        json.dumps({"guidance_id": "G", "title": "", "risk_class": "c", "detail": "d", "severity": "low", "reference": "r"}),
        json.dumps({"guidance_id": "G", "title": "t", "risk_class": "c", "severity": "low", "reference": "r"}),
    ],
    "catalog": [
        "7",
        *[json.dumps({"name": "tdd", "source": "o/r", "repo": "o/r", "upstream_ref": "a" * 40, "subdir": "s", "license": "MIT",
                      "archetype": "meta", "risk": "low", "improves": "i", **patch})
          for patch in (
              {}, {"name": "Bad Name"}, {"name": ""}, {"source": ""}, {"improves": None}, {"repo": "-o/r"}, {"repo": "o/.."},
              {"license": "BUSL-1.1"}, {"upstream_ref": "main"}, {"subdir": "../x"}, {"subdir": "/abs"}, {"archetype": "tool"},
              {"risk": "safe"}, {"expected_tree_hash": "abc"}, {"vendored": True}, {"vendored": "sometimes"},
              {"evidence": "https://x"}, {"vendored": True, "expected_tree_hash": GOOD_HASH, "notes": "n", "activation_description": "a"},
          )],
    ],
}


def gen_records():
    files = []
    for kind, label, text in RECORD_FILES:
        files.append({"kind": kind, "label": label, "text": text, "load": load_file(kind, text), "entries": per_entry(kind, text)})
    entries = []
    for kind, items in ENTRY_CASES.items():
        key = "skills" if kind == "catalog" else kind
        for item in items:
            text = f"{key}:\n- {item}\n"
            result = per_entry(kind, text)
            entries.append({"kind": kind, "text": text, "result": result[0]})
    # The method cap: every (method, level) pair, with the evidence each method requires.
    caps = []
    evidence = {"external-audit": {"reference": "https://a"}, "simulated-execution": {"epochs": 1, "models": ["m"]}}
    for method in ("first-party", "external-audit", "simulated-execution", "manual-review", "first-party-adoption"):
        for level in ("community", "adopted", "audited", "first_party"):
            data = validation_entry(method=method, level=level, evidence=evidence.get(method, DROP))
            try:
                ValidationRecord.from_dict(data)
                caps.append({"method": method, "level": level, "entry": data, "ok": True})
            except Exception as exc:  # noqa: BLE001
                caps.append({"method": method, "level": level, "entry": data, "ok": False, "error": str(exc)})
    # Serialisation: what PyYAML writes for records (refresh_shelf.py style) must load here too.
    records = [ValidationRecord.from_dict(validation_entry(notes="multi\nline: yes", activation_description="Use when: 'quotes' & \"more\"",
                                                           evidence={"files": 3, "has_scripts": False, "when": "2026-07-11"})),
               ValidationRecord.from_dict(validation_entry(name="x", audience="entity", delivered_via_map=True, notes="on"))]
    dumped = yaml.safe_dump({"validations": [r.to_dict() for r in records]}, sort_keys=False, allow_unicode=True)
    write("records.json", {"files": files, "entries": entries, "method_caps": caps,
                           "pyyaml_dump": {"text": dumped, "entries": [r.to_dict() for r in records]}})


# ----------------------------------------------------------------------------------------------
# selection

def skill_md(name, description, extra=""):
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n# {name}\n\nSteps.\n"


CURATED = {
    "alpha/SKILL.md": skill_md("alpha", "Alpha does A. Use when Codex needs A."),
    "beta/SKILL.md": skill_md("beta", "Beta runs a script."),
    "beta/scripts/run.sh": "#!/bin/sh\necho beta\n",
    "gamma/SKILL.md": skill_md("gamma", "Gamma, curated."),
    "delta/SKILL.md": skill_md("delta", "Delta, curated."),
    "epsilon/SKILL.md": skill_md("epsilon", "Epsilon is advised against."),
    "zeta/SKILL.md": skill_md("zeta", "Zeta has a low advisory."),
    "eta/SKILL.md": skill_md("eta", "Eta copied byte for byte."),
    "theta/SKILL.md": skill_md("theta", "Theta <needs> & \"tools\".", "allowed-tools: Read Bash(git:*)\nmetadata:\n  requires_mcp: meshvault-mcp\n  requires_tools: [write_file, 7, '', write_file, ' read_file ']\n"),
    "iota/SKILL.md": skill_md("iota", "Iota has a symlink."),
    "kappa/SKILL.md": skill_md("kappa", "Kappa has two provenances."),
    "lambda/SKILL.md": skill_md("lambda", "Lambda was re-vendored.", "metadata:\n  requires_mcp: {server: x}\n  requires_tools: []\n"),
    "mu/SKILL.md": skill_md("mu", "Mu has a name advisory but no record."),
}
USER = {
    "gamma/SKILL.md": skill_md("gamma", "Gamma, edited by the user."),
    "delta/SKILL.md": "no frontmatter here\n",
    "eta/SKILL.md": CURATED["eta/SKILL.md"],
    "nu/SKILL.md": skill_md("nu", "Nu lives only in the user root."),
}
SYMLINKS = {"curated": {"iota/link.md": "SKILL.md"}}


def materialize(root, files, links=None):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    for rel, target in (links or {}).items():
        os.symlink(target, root / rel)


def gen_selection():
    tmp = pathlib.Path(tempfile.mkdtemp())
    try:
        curated, user = tmp / "curated", tmp / "user"
        materialize(curated, CURATED, SYMLINKS["curated"])
        materialize(user, USER)
        tree = {name: abstractskill.hash_skill_tree(curated / name) for name in
                ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "kappa", "lambda")}

        def rec(name, level="first_party", method="first-party", source="first-party", tree_hash=None, **extra):
            return {"name": name, "source": source, "tree_hash": tree_hash or tree[name], "level": level, "method": method,
                    "validated_by": "curator", "validated_at": "2026-07-11", **extra}

        validations = [
            rec("alpha", activation_description="Alpha for this framework."),
            rec("alpha", level="adopted", method="manual-review", source="first-party", activation_description="lower-ranked override"),
            rec("beta", level="adopted", method="manual-review", source="acme/beta"),
            rec("gamma"), rec("delta"), rec("epsilon"),
            rec("zeta", source="zeta/upstream"),
            rec("eta", activation_description="Eta, described."),
            rec("theta", activation_description="Theta & co."),
            rec("kappa", source="one/source"), rec("kappa", level="adopted", method="manual-review", source="two/source"),
            rec("lambda", source="old/lambda", tree_hash=sha("previous lambda")),
        ]
        advisories = [
            {"name": "epsilon", "source": "anywhere", "official_intent": "i", "hidden_issue": "epsilon steals tokens",
             "severity": "low", "reference": "r", "tree_hash": tree["epsilon"]},
            {"name": "zeta", "source": "zeta/upstream", "official_intent": "i", "hidden_issue": "zeta phones home",
             "severity": "medium", "reference": "r"},
            {"name": "kappa", "source": "two/source", "official_intent": "i", "hidden_issue": "kappa two is bad",
             "severity": "high", "reference": "r"},
            {"name": "lambda", "source": "old/lambda", "official_intent": "i", "hidden_issue": "old lambda leaked",
             "severity": "low", "reference": "r"},
            {"name": "mu", "source": "mu/source", "official_intent": "i", "hidden_issue": "mu is risky",
             "severity": "critical", "reference": "r"},
            {"name": "alpha", "source": "first-party", "official_intent": "i", "hidden_issue": "withdrawn alpha",
             "severity": "critical", "reference": "r", "status": "withdrawn", "withdrawn_reason": "mistake"},
        ]
        registry = TrustRegistry(validations=[ValidationRecord.from_dict(v) for v in validations],
                                 advisories=[AdvisoryEntry.from_dict(a) for a in advisories])
        pin_beta = f"beta@{tree['beta']}"
        scenarios = [
            ("all curated, nothing enabled", ["curated"], ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu", "ghost"], [], {}),
            ("bare enable of review skills", ["curated"], ["beta", "zeta", "lambda", "mu", "epsilon"], ["beta", "zeta", "lambda", "mu", "epsilon"], {}),
            ("hash pin grants exactly those bytes", ["curated"], ["beta"], [pin_beta], {}),
            ("upper-case hex pin", ["curated"], ["beta"], [f"beta@{tree['beta'].upper()}"], {}),
            ("stale pin holds with both hashes named", ["curated"], ["beta"], [f"beta@{sha('old beta')}", f"beta@{sha('older beta')}"], {}),
            ("malformed pins grant nothing", ["curated"], ["beta"], ["beta@abc", "Beta@" + tree["beta"], "beta@", "@" + tree["beta"], "", 7, None], {}),
            ("pin governs over bare entry", ["curated"], ["beta"], ["beta", f"beta@{sha('other')}"], {}),
            ("bare grant is exact-case", ["curated"], ["beta"], ["BETA", " beta "], {}),
            ("scalar enabled is one entry", ["curated"], ["beta"], "beta", {}),
            ("pins never constrain attachable skills", ["curated"], ["alpha"], [f"alpha@{sha('x')}"], {}),
            ("shadowing: user copies win when valid", ["curated", "user"], ["gamma", "delta", "eta", "nu", "alpha"], [], {}),
            ("shadow held even with curated pin", ["curated", "user"], ["gamma"], [f"gamma@{tree['gamma']}"], {}),
            ("shadow activated by bare enable, loudly", ["curated", "user"], ["gamma"], ["gamma"], {}),
            ("explicit sources", ["curated"], ["alpha", "zeta", "kappa", "theta"], [], {"alpha": "elsewhere", "zeta": "  ", "kappa": 42, "theta": "first-party"}),
            ("duplicates and bad names", ["curated"], ["alpha", "alpha", "Bad_Name", "../etc", "", "alpha", "theta", "theta"], [], {}),
            ("missing root", ["curated", "nowhere"], ["alpha", "ghost"], [], {}),
        ]
        roots = {"curated": curated, "user": user, "nowhere": tmp / "nowhere"}
        results = []
        for label, root_names, names, enabled, sources in scenarios:
            notes = []
            selection = select_skills_for_context(registry, [roots[r] for r in root_names], names, sources=sources,
                                                  enabled=enabled, on_warning=notes.append)
            block = format_available_skills_xml(list(selection.active), descriptions=selection.activation_descriptions)
            results.append({
                "label": label, "roots": root_names, "names": names, "enabled": enabled, "sources": sources,
                "active": list(selection.active_names),
                "held": [{"name": n, "level": v.level.value, "reasons": list(v.reasons)} for n, v in selection.held],
                "blocked": [{"name": n, "level": v.level.value, "reasons": list(v.reasons)} for n, v in selection.blocked],
                "missing": list(selection.missing),
                "activation_descriptions": dict(selection.activation_descriptions),
                "warnings": [w.replace(str(tmp), "<ROOT>") for w in selection.warnings],
                "on_warning": [w.replace(str(tmp), "<ROOT>") for w in notes],
                "resolved_paths": {k: str(v).replace(str(tmp), "<ROOT>") for k, v in selection.resolved_paths.items()},
                "resolved_tree_hashes": dict(selection.resolved_tree_hashes),
                "requires": {k: {"mcp_servers": list(v.mcp_servers), "tools": list(v.tools)} for k, v in selection.requires.items()},
                "activation_block": block,
            })
        write("selection.json", {"roots": {"curated": CURATED, "user": USER}, "symlinks": SYMLINKS,
                                 "validations": validations, "advisories": advisories, "scenarios": results})
    finally:
        shutil.rmtree(tmp)


# ----------------------------------------------------------------------------------------------
# prompt, tools, demand

def meta(name, description="d", allowed=()):
    return SkillMetadata(name=name, description=description, allowed_tools=tuple(allowed))


def gen_prompt():
    cases = [
        {"skills": [], "descriptions": None},
        {"skills": [["beta", "Uses <tags> & \"quotes\" 'apos'"], ["alpha", "A"]], "descriptions": {"alpha": "Override > A"}},
        {"skills": [["b", "x"], ["a", "y"], ["a", "z"], ["a-b", "w"], ["a0", "v"]], "descriptions": {"a": "same for both"}},
        {"skills": [["zz", "unicode é ✓ 😀"], ["z", "&amp; already"]], "descriptions": {"other": "unused"}},
    ]
    for case in cases:
        skills = [meta(n, d) for n, d in case["skills"]]
        case["block"] = format_available_skills_xml(skills, descriptions=case["descriptions"])
    write("prompt.json", {"cases": cases})


def gen_tools():
    name_map = {"Read": "read_file", "Edit": ["read_file", "write_file"], "Bash(git:*)": ["git", "execute_command"]}
    grant = ["read_file", "write_file", "git", "web_search"]
    cases = [
        ("no skills: grant only", grant, [], None),
        ("undeclared skill implies nothing", grant, [("a", [])], None),
        ("identity match narrows", grant, [("a", ["read_file"])], None),
        ("mapped tokens, partially out of grant", grant, [("a", ["Bash(git:*)", "Edit"])], name_map),
        ("unresolved token denies", grant, [("a", ["Bash(git:*)"])], None),
        ("union over declared skills", grant, [("a", ["Read"]), ("b", ["web_search"]), ("c", [])], name_map),
        ("declared equal to grant is not narrowed", ["read_file"], [("a", ["read_file"])], None),
        ("empty grant denies all", [], [("a", ["read_file"]), ("b", [])], name_map),
        ("empty grant, no skills", [], [], None),
        ("never widens beyond grant", ["read_file"], [("a", ["write_file", "Edit"])], name_map),
        ("mapped name also granted directly", grant, [("a", ["Read", "read_file", "unknown"])], name_map),
    ]
    out = []
    for label, g, skills, nm in cases:
        metas = [meta(n, allowed=t) for n, t in skills]
        res = effective_tools(g, metas, name_map=nm)
        per_skill = [effective_tools(g, [m], name_map=nm) for m in metas]

        def d(r):
            return {"allowed": sorted(r.allowed), "declared_bound_active": r.declared_bound_active,
                    "narrowed_by_skills": r.narrowed_by_skills, "declared_skills": list(r.declared_skills),
                    "undeclared_skills": list(r.undeclared_skills), "out_of_grant_names": [list(p) for p in r.out_of_grant_names],
                    "unresolved_tokens": [list(p) for p in r.unresolved_tokens], "warnings": list(r.warnings)}
        out.append({"label": label, "grant": g, "skills": [{"name": n, "allowed_tools": t} for n, t in skills],
                    "name_map": nm, "result": d(res), "per_skill": [d(r) for r in per_skill]})
    write("tools.json", {"cases": out})


def gen_demand():
    inv = [
        {"name": "read_file", "risk_rank": 1, "risk_tier": "observe", "risk_presentation": "vetted"},
        {"name": "write_file", "risk_rank": 2, "risk_tier": "act"},
        {"name": "send_email", "risk_rank": 3, "enabled": False},
        {"name": "rm_rf", "risk_rank": 4, "enabled": "off"},
        {"name": "mv_note", "risk_rank": 2, "mcp_server": "meshvault-mcp"},
        {"name": "mv_delete", "risk_rank": 4, "server": " meshvault-mcp ", "risk_presentation": "unvetted"},
    ]
    weird = [
        "not a row", {"risk_rank": 1}, {"name": "  "},
        {"name": "b1", "risk_rank": True}, {"name": "f1", "risk_rank": 2.5}, {"name": "f2", "risk_rank": 3.0},
        {"name": "s1", "risk_rank": "3"}, {"name": "s2", "risk_rank": "high"}, {"name": "o1", "risk_rank": 5},
        {"name": "o2", "risk_rank": 0}, {"name": "l1", "risk_tier": 2}, {"name": "l2", "risk_tier": "destroy"},
        {"name": "l3", "risk_tier": 9}, {"name": "e1", "risk_rank": 1, "enabled": "maybe"}, {"name": "e2", "enabled": "YES", "risk_rank": 2},
        {"name": "d1", "risk_rank": 1}, {"name": "d1", "risk_rank": 4, "mcp_server": "x-mcp"}, {"name": "n1", "risk_rank": None, "risk_tier": 3},
        {"name": "l4", "risk_tier": [1]},
    ]
    cases = [
        ("undeclared, no scripts", [], [], False, inv, None),
        ("undeclared with scripts", [], [], True, inv, None),
        ("declared tools, no grant lens", [], ["read_file", "write_file", "missing_tool"], False, inv, None),
        ("declared with grant lens", [], ["read_file", "write_file", "send_email"], False, inv, ["read_file"]),
        ("empty grant lens", [], ["read_file"], False, inv, []),
        ("mcp server expands to its tools", ["meshvault-mcp"], [], False, inv, ["mv_note", " mv_delete "]),
        ("unregistered server", ["ghost-mcp"], ["read_file"], True, inv, None),
        ("declared twice: two rows", ["meshvault-mcp"], ["mv_note"], False, inv, None),
        ("disabled rows still rank", [], ["send_email", "rm_rf"], False, inv, ["send_email"]),
        ("no inventory rows", ["meshvault-mcp"], ["read_file"], False, [], None),
        ("blank declarations skipped", [" "], ["", " read_file "], False, inv, None),
        ("odd rows", ["x-mcp"], ["b1", "f1", "f2", "s1", "s2", "o1", "o2", "l1", "l2", "l3", "e1", "e2", "d1", "n1", "l4"], False, weird, None),
        ("scripts floor above declared", [], ["write_file"], True, inv, None),
    ]
    out = []
    for label, servers, tools, scripts, inventory, granted in cases:
        report = derive_demand(SkillRequires(mcp_servers=tuple(servers), tools=tuple(tools)), has_scripts=scripts,
                               inventory=inventory, granted=granted)
        out.append({
            "label": label, "requires": {"mcp_servers": servers, "tools": tools}, "has_scripts": scripts,
            "inventory": inventory, "granted": granted,
            "report": {"declared": report.declared, "demand_rank": report.demand_rank, "scripts_floor": report.scripts_floor,
                       "effective_rank": report.effective_rank, "state": report.state,
                       "rows": [{"name": r.name, "kind": r.kind, "bucket": r.bucket, "risk_rank": r.risk_rank, "band": r.band,
                                 "presentation": r.presentation, "via_server": r.via_server} for r in report.rows],
                       "unmet_servers": list(report.unmet_servers), "notes": list(report.notes)},
        })
    write("demand.json", {"cases": out})


# ----------------------------------------------------------------------------------------------
# seeding

def bundle_files(version, variant):
    files = {
        "catalog.yaml": f"version: '{version}'\nskills: []\n",
        "validations.yaml": f"validations: []  # {variant}\n",
        "advisories.yaml": "advisories: []\n",
        "guidance.yaml": "guidance: []\n",
        "licenses/tdd.LICENSE": "MIT\n",
        "licenses/.DS_Store": "junk",
        "notes.yml": "not seeded: .yml is not .yaml\n",
        "skills/keep/SKILL.md": skill_md("keep", "Unchanged between bundles."),
        "skills/grow/SKILL.md": skill_md("grow", f"Grows ({variant})."),
        "skills/grow/references/more.md": f"more {variant}\n",
        "skills/edited/SKILL.md": skill_md("edited", f"Edited upstream ({variant})."),
        "skills/foreign/SKILL.md": skill_md("foreign", "Bundled foreign."),
        "skills/linked/SKILL.md": skill_md("linked", "A symlink at dest."),
        "skills/inner/SKILL.md": skill_md("inner", f"Inner symlink ({variant})."),
        "skills/typed/SKILL.md": skill_md("typed", "A file where a folder belongs."),
        "skills/junk/SKILL.md": skill_md("junk", "Junk is not copied."),
        "skills/junk/.DS_Store": "junk",
    }
    if variant == "v1":
        files["skills/retired/SKILL.md"] = skill_md("retired", "Leaves the bundle in v2.")
        files["skills/gone/SKILL.md"] = skill_md("gone", "Leaves the bundle and the dest.")
    return files


def tree_listing(root):
    """Every entry under root (not following links): files with sha256, links with targets."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in sorted(dirnames + filenames):
            path = pathlib.Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            if rel.startswith(".seed-staging") or rel == ".seed.lock":
                continue
            if path.is_symlink():
                out[rel] = {"symlink": os.readlink(path)}
            elif path.is_file():
                out[rel] = {"sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
    return dict(sorted(out.items()))


def snapshot(root):
    """The whole folder as inputs for a test: file contents (text) and symlink targets."""
    files, links = {}, {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in sorted(dirnames + filenames):
            path = pathlib.Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                links[rel] = os.readlink(path)
            elif path.is_file():
                files[rel] = path.read_text(encoding="utf-8")
    return dict(sorted(files.items())), dict(sorted(links.items()))


def run_seed(bundle_root, dest):
    bundled.bundled_registry_dir = lambda: bundle_root
    report = seed_registry(dest)
    return {k: list(getattr(report, k)) for k in (
        "added", "updated", "unchanged", "kept_user_modified", "kept_foreign", "kept_unknown_provenance",
        "kept_symlink", "kept_unreadable", "kept_newer", "not_in_bundle")} | {
        "bundled_version": report.bundled_version, "previous_version": report.previous_version, "changed": report.changed}


def gen_seed():
    scenarios = []
    tmp = pathlib.Path(tempfile.mkdtemp())
    try:
        b1, b2, b0 = tmp / "bundle-v1", tmp / "bundle-v2", tmp / "bundle-v0"
        materialize(b1, bundle_files("2026.09.25", "v1"))
        materialize(b2, bundle_files("2026.10.1", "v2"))
        materialize(b0, bundle_files("2026.9", "v0"))

        def scenario(label, bundle_name, bundle_root, prepare):
            dest = tmp / f"dest-{len(scenarios)}"
            prepare(dest)
            dest.mkdir(exist_ok=True)
            before_files, before_links = snapshot(dest)
            manifest_before = (dest / ".seeded.json").read_text() if (dest / ".seeded.json").exists() else None
            first = run_seed(bundle_root, dest)
            manifest_after = (dest / ".seeded.json").read_text() if (dest / ".seeded.json").exists() else None
            after = tree_listing(dest)
            mtime = (dest / ".seeded.json").stat().st_mtime_ns if manifest_after else None
            second = run_seed(bundle_root, dest)
            rewritten = manifest_after is not None and (dest / ".seeded.json").stat().st_mtime_ns != mtime
            scenarios.append({"label": label, "bundle": bundle_name, "before_files": before_files, "before_links": before_links,
                              "manifest_before": manifest_before, "report": first, "manifest_after": manifest_after,
                              "after": after, "second_report": second, "second_rewrote_manifest": rewritten})

        def empty(dest):
            return {}, {}

        def seeded_then_edited(dest):
            run_seed(b1, dest)
            edits = {
                "skills/edited/SKILL.md": skill_md("edited", "Edited by the operator."),
                "skills/foreign-extra/SKILL.md": skill_md("foreign-extra", "Not from any seed."),
                "skills/foreign/SKILL.md": skill_md("foreign", "An operator's own foreign."),
                "guidance.yaml": "guidance: []  # operator note\n",
            }
            materialize(dest, edits)
            shutil.rmtree(dest / "skills/linked")
            os.symlink("keep", dest / "skills/linked")
            os.symlink("SKILL.md", dest / "skills/inner/alias.md")
            shutil.rmtree(dest / "skills/typed")
            (dest / "skills/typed").write_text("a file now\n")
            shutil.rmtree(dest / "skills/gone")
            # A foreign item: bundled in v2, present at dest, never recorded by a seed.
            manifest = json.loads((dest / ".seeded.json").read_text())
            del manifest["items"]["skills/foreign"]
            (dest / ".seeded.json").write_text(json.dumps(manifest, indent=2) + "\n")
            return edits, {"skills/linked": "keep", "skills/inner/alias.md": "SKILL.md"}

        def populated_no_manifest(dest):
            files = {k: v for k, v in bundle_files("2026.09.25", "v1").items() if k.startswith("skills/keep/") or k.startswith("skills/grow/")}
            files["skills/grow/SKILL.md"] = skill_md("grow", "Grows (someone else).")
            files["advisories.yaml"] = "advisories: []\n"
            materialize(dest, files)
            return files, {}

        def newer_seed(dest):
            run_seed(b1, dest)
            return {}, {}

        scenario("first seed into an empty folder", "v1", b1, empty)
        scenario("upgrade over a seeded and edited folder", "v2", b2, seeded_then_edited)
        scenario("populated folder without a manifest", "v2", b2, populated_no_manifest)
        scenario("downgrade keeps newer content", "v0", b0, newer_seed)
        bundles = {"v1": bundle_files("2026.09.25", "v1"), "v2": bundle_files("2026.10.1", "v2"), "v0": bundle_files("2026.9", "v0")}
        # Manifest rejections.
        rejects = []
        for label, text in [("not json", "{"), ("not an object", "[]"), ("schema 2", '{"schema": 2, "bundled_version": "1", "items": {}}'),
                            ("bad items", '{"schema": 1, "bundled_version": "1", "items": {"a": 1}}'),
                            ("bad version", '{"schema": 1, "bundled_version": "v1", "items": {}}'), ("empty file", "")]:
            dest = tmp / f"reject-{len(rejects)}"
            dest.mkdir()
            (dest / ".seeded.json").write_text(text)
            try:
                run_seed(b1, dest)
                rejects.append({"label": label, "manifest": text, "error": None})
            except Exception as exc:  # noqa: BLE001
                rejects.append({"label": label, "manifest": text, "error": str(exc).replace(str(dest), "<DEST>")})
        write("seed.json", {"bundles": bundles, "scenarios": scenarios, "manifest_rejections": rejects})
    finally:
        shutil.rmtree(tmp)


# ----------------------------------------------------------------------------------------------
# our writer, read by abstractskill

TRICKY = "yes: no # not a comment\n  'single' \"double\" \\ tab\t é ✓ 😀 \u0085 \u2028 2026-07-11 1e5 ~ null"


def gen_serialized():
    """Runs our serializer (scripts/refs/serialize-records.ts) on fixed records and checks that
    abstractskill loads its YAML back to exactly the records' to_dict()."""
    inputs = {
        "validations": [
            validation_entry(notes=TRICKY, activation_description="Use when: reviewing & \"shipping\"",
                             evidence={"files": 3, "has_scripts": False, "ratio": 0.25, "big": 1.5e21, "tags": ["on", "off", None], "nested": {"k": "v"}, "empty": {}}),
            validation_entry(name="entity-skill", audience="entity", delivered_via_map=True, validated_at="2026-07-11 10:00:00"),
            validation_entry(name="sim", method="simulated-execution", level="audited", evidence={"epochs": 2, "models": ["m1", "m2"]}),
        ],
        "advisories": [
            {"name": "evil", "source": "market", "official_intent": TRICKY, "hidden_issue": "steals: tokens", "severity": "critical",
             "reference": "https://x", "tree_hash": GOOD_HASH, "advisory_id": "ASA-1", "discovered_at": "2026-07-01"},
            {"name": "meh", "source": "market", "official_intent": "i", "hidden_issue": "h", "severity": "low", "reference": "r",
             "status": "withdrawn", "withdrawn_reason": "false positive", "withdrawn_at": "2026-07-02"},
        ],
        "guidance": [{"guidance_id": "G-1", "title": TRICKY, "risk_class": "supply chain", "detail": "d", "severity": "high", "reference": "r"}],
        "catalog": {"version": "2026.10.01", "skills": [
            {"name": "tdd", "source": "obra/superpowers", "repo": "obra/superpowers", "upstream_ref": "a" * 40, "subdir": "skills/tdd",
             "license": "MIT", "archetype": "procedure", "risk": "low", "improves": TRICKY, "vendored": True, "expected_tree_hash": GOOD_HASH,
             "evidence": ["https://example.com"], "notes": "n", "activation_description": "a"}]},
    }
    node = ROOT / "node_modules" / ".bin" / "node"
    if not node.exists():
        raise SystemExit(f"{node} not found; run npm install first (the generator runs our serializer)")
    run = subprocess.run([str(node), str(ROOT / "scripts/refs/serialize-records.ts")], input=json.dumps(inputs),
                         capture_output=True, text=True, check=False, cwd=ROOT)
    if run.returncode != 0:
        raise SystemExit(f"serialize-records.ts failed:\n{run.stderr}")
    texts = json.loads(run.stdout)
    expected = {
        "validations": [ValidationRecord.from_dict(d).to_dict() for d in inputs["validations"]],
        "advisories": [AdvisoryEntry.from_dict(d).to_dict() for d in inputs["advisories"]],
        "guidance": [GuidanceEntry.from_dict(d).to_dict() for d in inputs["guidance"]],
        "catalog": [CatalogEntry.from_dict(d).to_dict() for d in inputs["catalog"]["skills"]],
    }
    loaded = {kind: load_file(kind, texts[kind]) for kind in ("validations", "advisories", "guidance", "catalog")}
    version = yaml.safe_load(texts["catalog"]).get("version")
    checks = {kind: loaded[kind]["ok"] and json.loads(json.dumps(loaded[kind]["entries"], default=str)) == json.loads(json.dumps(expected[kind], default=str))
              for kind in loaded}
    checks["catalog_version"] = version == inputs["catalog"]["version"]
    write("serialized.json", {"inputs": inputs, "our_yaml": texts, "abstractskill_loaded": loaded, "loads_unchanged": checks})
    if not all(checks.values()):
        raise SystemExit(f"abstractskill does not load our serialized records unchanged: {checks}")


if __name__ == "__main__":
    logging.getLogger("abstractskill").setLevel(logging.WARNING)
    gen_verdicts()
    gen_records()
    gen_selection()
    gen_prompt()
    gen_tools()
    gen_demand()
    gen_seed()
    gen_serialized()
    print(f"wrote {OUT.relative_to(OUT.parents[2])}/*.json")
