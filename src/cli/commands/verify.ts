// skillshelf verify <url> (--key-id <id> --public-key <base64> | --keys <file> | --trust-on-first-use <file>)
// [--origin <origin>] [--token-env NAME] [--json]: downloads the shelf as a client would and checks every
// file digest, tree hash, revision and signature against the key the user trusts. Exit 0 only if all hold,
// 1 when anything does not (each failure names the skill, file and reason), 2 for usage mistakes.
import { KeysDocumentSchema, type PublicKeyEntry } from "../../core/signing/keys.ts";
import { parseCommandArgs, printable, UsageError, type Command } from "../lib/cli.ts";
import { SigningError } from "../../core/signing/payloads.ts";
import { ShelfFetchError, verifyShelf, type VerifyReport } from "../../core/signing/verify-shelf.ts";
import { CliError } from "../lib/cli.ts";
import { pinnedKeys, readKeysFile } from "../lib/verify.ts";

const USAGE =
  "skillshelf verify <url> (--key-id <id> --public-key <base64> | --keys <file> | --trust-on-first-use <file>) [--origin <origin>] [--token-env NAME] [--json]";

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(
    ctx.args,
    {
      "key-id": { type: "string" },
      "public-key": { type: "string" },
      keys: { type: "string" },
      "trust-on-first-use": { type: "string" },
      origin: { type: "string" },
      "token-env": { type: "string" },
      json: { type: "boolean" },
    },
    USAGE,
  );
  if (positionals.length !== 1) throw new UsageError(`expected the shelf's URL\nusage: ${USAGE}`);
  let url: URL;
  try {
    url = new URL(positionals[0]!);
  } catch {
    throw new UsageError(`${positionals[0]} is not a URL; pass the shelf's address, e.g. https://shelf.example.com`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`the URL must be http or https, not ${url.protocol}`);
  const base = url.toString().replace(/\/+$/, "");
  const tokenVar = values["token-env"];
  const token = tokenVar ? ctx.env[tokenVar]?.trim() : undefined;
  if (tokenVar && !token) throw new UsageError(`--token-env ${tokenVar}: the variable is not set`);

  const inline = values["key-id"] !== undefined || values["public-key"] !== undefined;
  const sources = [inline, values.keys !== undefined, values["trust-on-first-use"] !== undefined].filter(Boolean).length;
  if (sources !== 1)
    throw new UsageError(`say which key to trust: --key-id with --public-key, --keys <file>, or --trust-on-first-use <file> (exactly one)\nusage: ${USAGE}`);
  let keys: PublicKeyEntry[];
  if (inline) {
    if (!values["key-id"] || !values["public-key"]) throw new UsageError("--key-id and --public-key go together");
    const parsed = KeysDocumentSchema.shape.keys.safeParse([{ key_id: values["key-id"], public_key: values["public-key"], status: "active" }]);
    if (!parsed.success) throw new UsageError(`--public-key/--key-id: ${parsed.error.issues[0]!.message}`);
    keys = parsed.data;
  } else if (values.keys !== undefined) {
    keys = await readKeysFile(values.keys);
  } else {
    const pinned = await pinnedKeys(values["trust-on-first-use"]!, base, token);
    if (pinned.pinnedNow) ctx.stderr(`pinned the shelf's keys to ${values["trust-on-first-use"]} (trust on first use): later runs trust only these\n`);
    keys = pinned.keys;
  }

  let report: VerifyReport;
  try {
    report = await verifyShelf({ url: base, origin: values.origin ?? base, keys, token });
  } catch (error) {
    if (error instanceof SigningError) throw new UsageError(`--origin: ${error.message}`);
    if (error instanceof ShelfFetchError) throw new CliError(printable(`nothing was verified: ${error.message}`));
    throw error;
  }
  const ok = report.failures.length === 0;
  if (values.json) {
    ctx.stdout(`${JSON.stringify({ ok, ...report }, null, 2)}\n`);
    return ok ? 0 : 1;
  }
  // Names, paths and reasons come from the shelf: printed with control characters escaped.
  for (const f of report.failures) ctx.stdout(`${printable(`FAIL ${f.skill ?? "shelf"}${f.file ? `: ${f.file}` : ""}: ${f.reason}`)}\n`);
  ctx.stdout(
    `${ok ? "verified" : "NOT verified"}: generation ${report.generation} of ${report.url} for origin ${report.origin}: ` +
      `${report.verified.length} skill(s) verified, ${report.failures.length} failure(s), generation signature ${report.generationSignature}\n`,
  );
  return ok ? 0 : 1;
};
