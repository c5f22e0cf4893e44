// A vitest reporter that ends a run by naming every skipped test and why it was skipped, so a green
// run never hides a test that did not run. The reason is the note given to `ctx.skip(note)` or,
// for `describe.skipIf`, the suite's name, which states the condition ("(needs .venv-refs …)").
import type { Reporter, TestModule } from "vitest/node";

export default class SkipReasonsReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const lines: string[] = [];
    for (const module of testModules) {
      for (const test of module.children.allTests("skipped")) {
        // `.only` elsewhere is a developer's focus, not a skip worth reporting.
        if (test.options.mode === "run") continue;
        const result = test.result();
        const note = result.state === "skipped" && result.note ? `: ${result.note}` : "";
        lines.push(`  ${module.project.name} ${module.moduleId.replace(`${process.cwd()}/`, "")} > ${test.fullName}${note}`);
      }
    }
    if (lines.length > 0) process.stdout.write(`\nSkipped (${lines.length}), each with its reason:\n${lines.join("\n")}\n`);
  }
}
