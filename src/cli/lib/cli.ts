// Shared plumbing for CLI commands: errors that carry their exit code, and argument parsing
// that turns every mistake into a usage error instead of a stack trace.
import { parseArgs, type ParseArgsConfig } from "node:util";

/** A mistake the user can fix. Printed as one line, never with a stack trace. */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.name = "CliError";
    this.exitCode = exitCode;
  }
}

/** Wrong flags, missing arguments, a path that does not exist: exit 2. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, 2);
    this.name = "UsageError";
  }
}

/** What a command gets: its arguments and the streams to write to (swappable in tests). */
export interface CliContext {
  args: string[];
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** True when stderr is a terminal: commands may draw progress; otherwise they print plain lines. */
  interactive: boolean;
  env: Record<string, string | undefined>;
}

export type Command = (ctx: CliContext) => Promise<number>;

/** parseArgs with strict options; unknown flags and bad values become UsageErrors. */
export function parseCommandArgs<T extends NonNullable<ParseArgsConfig["options"]>>(args: string[], options: T, usage: string) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\nusage: ${usage}`);
  }
}

/** Parses a comma-separated flag value into a list, ignoring empty items. */
export function commaList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/**
 * A core note worded for people. The core marks every degraded path with `#FALLBACK:` (kept in
 * --json output, where tools match on it); on a terminal it says what it means instead.
 * @example forPeople("#FALLBACK: duplicate skill name(s) ignored") // => "fell back to the safe choice: duplicate skill name(s) ignored"
 */
export function forPeople(note: string): string {
  return note.replace(/^#FALLBACK: /, "fell back to the safe choice: ");
}

/**
 * Text a shelf supplied (a version, a name, a reason), safe to print on a terminal: C0 and C1
 * control characters (escape sequences, carriage returns, bells) and line or paragraph separators
 * are shown as `\uXXXX` instead of acting on the terminal.
 * @example printable("1.0\u001b[2J") // => "1.0\\u001b[2J"
 */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
