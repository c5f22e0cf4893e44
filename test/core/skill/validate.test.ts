import { describe, expect, it } from "vitest";
import versions from "../../goldens/foundation/versions.json";
import { splitTags, validateSkillMd, type Problem } from "../../../src/core/skill/validate.ts";
import { renderCatalog } from "../../../src/core/disclosure/catalog.ts";
import { parseYaml11, topLevelNode } from "../../../src/core/python-compat/yaml11.ts";
import { versionProblem } from "../../../src/core/skill/validate.ts";

const enc = new TextEncoder();
const skill = (frontmatter: string, body = "# Use\n\nDo the thing.\n") => enc.encode(`---\n${frontmatter}\n---\n${body}`);
const errors = (problems: Problem[]) => problems.filter((p) => p.severity === "error");
const warnings = (problems: Problem[]) => problems.filter((p) => p.severity === "warning");

function check(frontmatter: string, folder = "demo", body?: string) {
  return validateSkillMd(folder, skill(frontmatter, body));
}

describe("a valid skill", () => {
  it("has no problems and normalized metadata", () => {
    const v = check(
      [
        "name: demo",
        "description: Reviews a demo.",
        "license: Apache-2.0",
        "compatibility: Needs git",
        'version: "1.2.0"',
        "allowed-tools: Read  Grep Bash(git:*)",
        "when_to_use: [reviewing demos]",
        "when_not_to_use: [writing demos]",
        "metadata:",
        '  tags: "review, demo"',
        "  requires_mcp: github",
        "  requires_tools: git",
      ].join("\n"),
    );
    expect(v.problems.map((p) => `${p.severity}:${p.field}`)).toEqual(["warning:compatibility", "warning:allowed-tools"]);
    expect(v.ok).toBe(true);
    expect(v.metadata).toMatchObject({
      name: "demo",
      description: "Reviews a demo.",
      version: "1.2.0",
      license: "Apache-2.0",
      compatibility: "Needs git",
      allowed_tools: ["Read", "Grep", "Bash(git:*)"],
      when_to_use: ["reviewing demos"],
      when_not_to_use: ["writing demos"],
      tags: ["review", "demo"],
      requires_mcp: ["github"],
      requires_tools: ["git"],
    });
  });
});

describe("every problem is reported at once, naming skill and field", () => {
  it("collects problems across fields", () => {
    const v = check("name: Demo_Name\ndescription: yes\nversion: 1.0\nlicense: 2\nmetadata: [a]", "demo", "");
    expect(v.ok).toBe(false);
    const fields = errors(v.problems)
      .map((p) => p.field)
      .sort();
    // An empty body is only a warning (issue 12): the specification accepts it.
    expect(fields).toEqual(["description", "license", "metadata", "name", "name", "version"]);
    expect(warnings(v.problems).map((p) => p.field)).toContain("body");
    expect(v.problems.every((p) => p.skill === "demo")).toBe(true);
  });
});

describe("a long body", () => {
  // The skill page renders the first 64 KiB of a body (issue 25); validate says so past it.
  it("is a warning past the page's bound, and nothing at it", () => {
    const atBound = check("name: demo\ndescription: d", "demo", `# Use\n${"x".repeat(64 * 1024 - 7)}\n`);
    expect(atBound.problems).toEqual([]);
    const past = check("name: demo\ndescription: d", "demo", `# Use\n${"x".repeat(64 * 1024)}\n`);
    expect(past.ok).toBe(true);
    expect(warnings(past.problems)).toEqual([
      { skill: "demo", field: "body", severity: "warning", message: expect.stringMatching(/first 65536 .*links to SKILL\.md/) },
    ]);
  });
});

describe("name", () => {
  it.each([
    ["-demo", /single hyphens/],
    ["demo-", /single hyphens/],
    ["de--mo", /single hyphens/],
    ["Demo", /lowercase/],
    ["démo", /lowercase/],
  ])("rejects %s", (name, message) => {
    const v = check(`name: ${name}\ndescription: d`, name);
    expect(
      errors(v.problems)
        .map((p) => p.message)
        .join("\n"),
    ).toMatch(message);
  });
  it("must match the folder name", () => {
    expect(errors(check("name: demo\ndescription: d", "other").problems)[0]!.message).toMatch(/must match its folder name "other"/);
  });
  it("is at most 64 code points", () => {
    const long = "a".repeat(65);
    expect(errors(check(`name: ${long}\ndescription: d`, long).problems)[0]!.message).toMatch(/65 characters, over the limit of 64/);
    const ok = "a".repeat(64);
    expect(check(`name: ${ok}\ndescription: d`, ok).ok).toBe(true);
  });
  it("is required", () => {
    expect(errors(check("description: d").problems)[0]).toMatchObject({ field: "name", message: expect.stringMatching(/required/) });
  });
  it("explains YAML typing: `name: on` is a boolean", () => {
    expect(errors(check("name: on\ndescription: d").problems)[0]!.message).toMatch(/unquoted YAML scalar "on" became a boolean; quote it/);
  });
});

describe("description", () => {
  it("counts code points, not UTF-16 units", () => {
    const emoji = "\u{1F600}".repeat(1024); // 2048 UTF-16 units
    expect(check(`name: demo\ndescription: "${emoji}"`).ok).toBe(true);
    const over = `${emoji}x`;
    expect(errors(check(`name: demo\ndescription: "${over}"`).problems)[0]!.message).toMatch(/1025 characters, over the limit of 1024/);
  });
  it("must not be empty or blank", () => {
    expect(errors(check('name: demo\ndescription: "   "').problems)[0]!.message).toMatch(/empty/);
    expect(errors(check("name: demo\ndescription:").problems)[0]!.message).toMatch(/description is empty/);
  });
  it.each([
    ["yes", /"yes" became a boolean/],
    ["1.0", /"1.0" became a number/],
    ["2024-01-15", /"2024-01-15" became a date/],
    ["12", /"12" became an integer/],
  ])("`description: %s` names the YAML cause", (value, message) => {
    expect(errors(check(`name: demo\ndescription: ${value}`).problems)[0]!.message).toMatch(message);
  });
});

describe("optional fields", () => {
  it("compatibility is at most 500 code points", () => {
    expect(errors(check(`name: demo\ndescription: d\ncompatibility: "${"c".repeat(501)}"`).problems)[0]!.message).toMatch(/501 characters/);
  });
  it("license must be a string", () => {
    expect(errors(check("name: demo\ndescription: d\nlicense: 2").problems)[0]).toMatchObject({ field: "license" });
  });
  it("allowed-tools accepts a list with a warning naming which clients read which form, and rejects a mapping", () => {
    const list = check("name: demo\ndescription: d\nallowed-tools: [Read, Bash(git status)]");
    expect(list.ok).toBe(true);
    expect(list.metadata!.allowed_tools).toEqual(["Read", "Bash(git status)"]);
    expect(list.problems).toEqual([{ skill: "demo", field: "allowed-tools", severity: "warning", message: expect.any(String) }]);
    const message = list.problems[0]!.message;
    expect(message).toMatch(/agentskills-core 0\.7's registry \(agentskills-http\) requires a list and AbstractSkill reads either form/);
    expect(message).toMatch(
      /specification defines a space-separated string, and agentskills-core 0\.7's snapshot and signing checks \(build_skill_manifest\) refuse it/,
    );
    // A block-style list is the same list.
    expect(check("name: demo\ndescription: d\nallowed-tools:\n  - Read\n  - Grep").ok).toBe(true);
    expect(errors(check("name: demo\ndescription: d\nallowed-tools: {a: 1}").problems)[0]!.field).toBe("allowed-tools");
  });
  it("metadata must be a string-keyed mapping", () => {
    expect(errors(check("name: demo\ndescription: d\nmetadata: text").problems)[0]!.message).toMatch(/mapping/);
    expect(errors(check("name: demo\ndescription: d\nmetadata:\n  1: x").problems)[0]!.message).toMatch(/key 1 must be a string/);
  });
  it("metadata.tags: a comma-separated string is the portable form; a list is read with a warning; anything else is an error", () => {
    const text = check('name: demo\ndescription: d\nmetadata:\n  tags: "Review, security ,, on call"');
    expect(text.problems).toEqual([]);
    expect(text.metadata!.tags).toEqual(["Review", "security", "on call"]);
    expect(check("name: demo\ndescription: d\nmetadata:\n  tags: review").metadata!.tags).toEqual(["review"]);
    const list = check("name: demo\ndescription: d\nmetadata:\n  tags: [review, security]");
    expect(list.ok).toBe(true);
    expect(list.metadata!.tags).toEqual(["review", "security"]);
    expect(list.problems.map((p) => `${p.severity}:${p.field}`)).toEqual(["warning:metadata.tags"]);
    expect(list.problems[0]!.message).toMatch(/MCP TypeScript SDK 2\.4's skills extension drops the skill from skills\/list/);
    expect(list.problems[0]!.message).toMatch(/agentskills-core 0\.7's snapshot and signing checks \(build_skill_manifest\) refuse it/);
    expect(list.problems[0]!.message).toMatch(/tags: "review, security"/);
    const map = check("name: demo\ndescription: d\nmetadata:\n  tags: {a: 1}");
    expect(errors(map.problems).map((p) => p.field)).toEqual(["metadata.tags"]);
  });
  it("splitTags: commas separate, Python whitespace is stripped, blanks are dropped", () => {
    expect(splitTags(" a ,b,,\u3000c\u3000, ")).toEqual(["a", "b", "c"]);
    expect(splitTags("")).toEqual([]);
  });
  it("the catalog's tag filter reads comma-separated tags through the normalized metadata", () => {
    const tagged = check('name: demo\ndescription: d\nmetadata:\n  tags: "Docs, review"').metadata!;
    const other = check('name: other\ndescription: o\nmetadata:\n  tags: "ops"', "other").metadata!;
    const catalog = renderCatalog([tagged, other], { tags: ["docs"], format: "markdown" });
    expect(catalog).toContain("demo");
    expect(catalog).not.toContain("other");
  });
  it("every metadata value that is not a string is a warning naming the clients that refuse it", () => {
    const v = check("name: demo\ndescription: d\nmetadata:\n  author: me\n  count: 3\n  nested: {a: b}\n  flag: yes");
    expect(v.ok).toBe(true);
    // The last: `yes` is also read differently by YAML 1.1 and 1.2 (yaml-versions.test.ts).
    expect(v.problems.map((p) => `${p.severity}:${p.field}`)).toEqual([
      "warning:metadata.count",
      "warning:metadata.nested",
      "warning:metadata.flag",
      "warning:metadata.flag",
    ]);
    expect(v.problems[0]!.message).toMatch(
      /^metadata\.count is an integer, but the specification's metadata maps strings to strings: the MCP TypeScript SDK 2\.4/,
    );
    expect(v.problems[2]!.message).toMatch(/metadata\.flag is a boolean/);
  });
  it("metadata.openclaw as a map (OpenClaw's block form, or its single-line JSON) stays a warning that names the trade", () => {
    for (const text of [
      'name: demo\ndescription: d\nmetadata: {"openclaw": {"emoji": "x", "requires": {"bins": ["git"]}}}',
      "name: demo\ndescription: d\nmetadata:\n  openclaw:\n    emoji: x\n    requires:\n      bins: [git]",
    ]) {
      const v = check(text);
      expect(v.ok).toBe(true);
      expect(v.problems.map((p) => `${p.severity}:${p.field}`)).toEqual(["warning:metadata.openclaw"]);
      expect(v.problems[0]!.message).toMatch(/MCP TypeScript SDK 2\.4.*agentskills-core 0\.7.*OpenClaw reads metadata\.openclaw only as an object/);
    }
    // A JSON string is kept by every client (and OpenClaw ignores it): no warning.
    expect(check(`name: demo\ndescription: d\nmetadata:\n  openclaw: '{"emoji": "x"}'`).problems).toEqual([]);
  });
  it("requirements: a bare string is one item; a list is read with a warning; malformed values are dropped with a warning", () => {
    const v = check("name: demo\ndescription: d\nmetadata:\n  requires_mcp: github\n  requires_tools: [git, 3, '']");
    expect(v.ok).toBe(true);
    expect(v.metadata!.requires_mcp).toEqual(["github"]);
    expect(v.metadata!.requires_tools).toEqual(["git"]);
    expect(warnings(v.problems).map((p) => p.field)).toEqual(["metadata.requires_tools", "metadata.requires_tools"]);
    expect(warnings(v.problems)[0]!.message).toMatch(/a string is one requirement to every client that reads it \(AbstractSkill, skillshelf\)/);
    const one = check('name: demo\ndescription: d\nmetadata:\n  requires_tools: "git, sh"');
    expect(one.metadata!.requires_tools).toEqual(["git, sh"]);
    expect(warnings(one.problems)[0]!.message).toMatch(/"git, sh" is read as ONE requirement by AbstractSkill and skillshelf/);
    const bad = check("name: demo\ndescription: d\nmetadata:\n  requires_mcp: {a: 1}");
    expect(bad.metadata!.requires_mcp).toEqual([]);
    expect(warnings(bad.problems)[0]!.field).toBe("metadata.requires_mcp");
  });
  it("unknown top-level keys are warnings, not errors", () => {
    const v = check("name: demo\ndescription: d\nauthor: me");
    expect(v.ok).toBe(true);
    expect(warnings(v.problems)[0]).toMatchObject({ field: "author" });
  });
});

describe("selection hints", () => {
  it("allow at most 5 entries of at most 200 code points, none blank", () => {
    const six = check(`name: demo\ndescription: d\nwhen_to_use: [a, b, c, d, e, f]`);
    expect(errors(six.problems)[0]!.message).toMatch(/has 6 entries, over the limit of 5/);
    const long = check(`name: demo\ndescription: d\nwhen_not_to_use: ["${"x".repeat(201)}"]`);
    expect(errors(long.problems)[0]!.message).toBe("field 'when_not_to_use' entry 0 is 201 characters, over the limit of 200");
    const blank = check(`name: demo\ndescription: d\nwhen_to_use: [ok, "  "]`);
    expect(errors(blank.problems)[0]!.message).toBe("field 'when_to_use' entry 1 is empty");
    const typed = check(`name: demo\ndescription: d\nwhen_to_use: [ok, 3]`);
    expect(errors(typed.problems)[0]!.message).toMatch(/^field 'when_to_use' entry 1 must be str, got int/);
    const notList = check(`name: demo\ndescription: d\nwhen_to_use: sometimes`);
    expect(errors(notList.problems)[0]!.message).toMatch(/must be list, got str/);
  });
});

describe("version: agentskills-core's validate_version messages (goldens)", () => {
  for (const golden of versions) {
    it(golden.yaml, () => {
      const { value, document } = parseYaml11(golden.yaml);
      const message = versionProblem(topLevelNode(document, "version"), (value as { version: unknown }).version);
      expect(message ?? null).toBe(golden.message);
    });
  }
});

describe("portability: a skill that passes parses identically in every client", () => {
  it("reports a BOM", () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...skill("name: demo\ndescription: d")]);
    expect(errors(validateSkillMd("demo", bytes).problems)[0]!.message).toMatch(/byte-order mark/);
  });
  it("reports any CR with its line", () => {
    const bytes = enc.encode("---\r\nname: demo\r\ndescription: d\r\n---\r\nbody\r\n");
    const v = validateSkillMd("demo", bytes);
    expect(v.ok).toBe(false);
    expect(errors(v.problems)[0]!.message).toMatch(/carriage return \(CR\) on line 1.*LF line endings/);
  });
  it("reports a --- inside the frontmatter that the first-'---' rule would cut at", () => {
    const v = check("name: demo\ndescription: a---b");
    expect(errors(v.problems)[0]!.message).toMatch(/line 3 contains '---' inside the frontmatter/);
  });
  it("reports an indented first frontmatter line", () => {
    expect(
      errors(check("  name: demo\n  description: d").problems)
        .map((p) => p.message)
        .join(),
    ).toMatch(/indented/);
  });
  it("reports bytes that are not UTF-8 as one problem", () => {
    const v = validateSkillMd("demo", new Uint8Array([0x2d, 0x2d, 0x2d, 0x0a, 0xc3, 0x28]));
    expect(v.problems).toEqual([{ skill: "demo", field: "SKILL.md", severity: "error", message: expect.stringMatching(/not valid UTF-8/) }]);
  });
});

describe("body", () => {
  it("may be empty (the specification, skills-ref and AbstractSkill accept it), with a warning naming agentskills-core's registry", () => {
    const v = check("name: demo\ndescription: d", "demo", "  \n\n");
    expect(v.ok).toBe(true);
    expect(v.problems).toEqual([
      {
        skill: "demo",
        field: "body",
        severity: "warning",
        message: expect.stringMatching(/agentskills-core 0\.7's registry .* refuses it \("body is empty"\)/),
      },
    ]);
  });
});

describe("agentskills-core 0.7 type conflicts are warnings", () => {
  it("warns on a string compatibility or allowed-tools, naming the consequence", () => {
    const v = check("name: demo\ndescription: d\ncompatibility: Needs git\nallowed-tools: Read");
    expect(v.ok).toBe(true);
    expect(warnings(v.problems).map((p) => p.field)).toEqual(["compatibility", "allowed-tools"]);
    expect(warnings(v.problems)[0]!.message).toMatch(/agentskills-core 0\.7's registry \(agentskills-http's register_all\) refuses it, expecting a mapping/);
    expect(warnings(v.problems)[1]!.message).toMatch(/agentskills-core 0\.7's registry \(agentskills-http's register_all\) refuses it, expecting a list/);
  });
});
