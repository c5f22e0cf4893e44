// Used by gen-abstractskill-goldens.py: reads record dicts (JSON on stdin), loads them through
// our schemas and prints the YAML our serializer writes, so the generator can check that
// abstractskill loads that YAML unchanged. Not a CLI command; run with the project's Node 24.
import { parseAdvisories, parseCatalog, parseGuidance, parseValidations } from "../../src/core/trust/records.ts";
import { serializeAdvisories, serializeCatalog, serializeGuidance, serializeValidations } from "../../src/core/trust/serialize.ts";

const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
const input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const v = parseValidations(JSON.stringify({ validations: input.validations }));
const a = parseAdvisories(JSON.stringify({ advisories: input.advisories }));
const g = parseGuidance(JSON.stringify({ guidance: input.guidance }));
const c = parseCatalog(JSON.stringify({ version: input.catalog.version, skills: input.catalog.skills }));
const problems = [...v.problems, ...a.problems, ...g.problems, ...c.problems];
if (problems.length) {
  process.stderr.write(`serialize-records: inputs rejected:\n${problems.map((p) => p.message).join("\n")}\n`);
  process.exit(1);
}
const header = ["Written by skillshelf (src/core/trust/serialize.ts)."];
process.stdout.write(
  JSON.stringify({
    validations: serializeValidations(v.entries, header),
    advisories: serializeAdvisories(a.entries, header),
    guidance: serializeGuidance(g.entries, header),
    catalog: serializeCatalog(c.version, c.entries, header),
  }),
);
