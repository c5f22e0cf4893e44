// Signing on the CLI side: where the key, origin and key id come from (flags, the
// SKILLSHELF_SIGN_KEY variable, or the shelf's skillshelf-signing.json, which `seed` never copies:
// it copies only top-level *.yaml, licenses/ and skills/), signing a built generation, and
// writing a new key file safely (keygen).
import { lstat, open, readFile } from "node:fs/promises";
import path from "node:path";
import type { SkillRecord } from "../../core/generation/manifest.ts";
import { importPkcs8Pem, type SigningKey } from "../../core/signing/ed25519.ts";
import { KeyIdSchema } from "../../core/signing/keys.ts";
import { originProblem, SigningError } from "../../core/signing/payloads.ts";
import { signGeneration, type SignaturesDocument } from "../../core/signing/signatures.ts";
import { CliError, UsageError } from "./cli.ts";
import { isInside } from "./paths.ts";

/** The environment variable naming the private key file when --sign-key is not given. */
export const SIGN_KEY_ENV = "SKILLSHELF_SIGN_KEY";
/** The shelf's signing settings: {"origin", "key_id", "key_file"?} (key_file relative to the shelf, and outside it). */
export const SIGNING_CONFIG_FILE = "skillshelf-signing.json";

/** What signing a build needs. */
export interface SigningOptions {
  key: SigningKey;
  keyFile: string;
  origin: string;
  keyId: string;
}

async function readConfig(shelfDir: string): Promise<{ origin?: string; key_id?: string; key_file?: string } | null> {
  const file = path.join(shelfDir, SIGNING_CONFIG_FILE);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return null;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CliError(`${file} is not JSON; expected {"origin": "...", "key_id": "...", "key_file": "..."}`);
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw new CliError(`${file} must be a JSON object`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(json)) {
    if (!["origin", "key_id", "key_file"].includes(k)) throw new CliError(`${file}: unknown field ${JSON.stringify(k)} (origin, key_id, key_file)`);
    if (typeof v !== "string") throw new CliError(`${file}: ${k} must be a string`);
    out[k] = k === "key_file" ? path.resolve(shelfDir, v) : v;
  }
  return out;
}

/**
 * The signing options of a build, or null when it is not signed (no key anywhere). The key is
 * --sign-key, else $SKILLSHELF_SIGN_KEY, else the shelf config's key_file; origin and key id are
 * flags, else the config. A key without an origin or key id is a usage error, as is a key file
 * inside the shelf or the build folder (it would be published or copied).
 */
export async function signingOptions(
  flags: { signKey?: string; origin?: string; keyId?: string },
  env: Record<string, string | undefined>,
  dirs: { shelfDir: string; outDir: string },
): Promise<SigningOptions | null> {
  const config = await readConfig(dirs.shelfDir);
  const keyFile = flags.signKey ?? (env[SIGN_KEY_ENV]?.trim() || undefined) ?? config?.key_file;
  const origin = flags.origin ?? config?.origin;
  const keyId = flags.keyId ?? config?.key_id;
  if (keyFile === undefined) {
    if (flags.origin !== undefined || flags.keyId !== undefined)
      throw new UsageError(`--origin and --key-id sign with a key: pass --sign-key <file> (or set ${SIGN_KEY_ENV})`);
    return null;
  }
  if (origin === undefined) throw new UsageError(`signing needs --origin <url> (the shelf's stable identity), or "origin" in ${SIGNING_CONFIG_FILE}`);
  if (originProblem(origin)) throw new UsageError(`--origin: ${originProblem(origin)}`);
  if (keyId === undefined)
    throw new UsageError(`signing needs --key-id <id> (as the Worker's SHELF_SIGNING_KEYS names the key), or "key_id" in ${SIGNING_CONFIG_FILE}`);
  const id = KeyIdSchema.safeParse(keyId);
  if (!id.success) throw new UsageError(`--key-id ${JSON.stringify(keyId)}: ${id.error.issues[0]!.message}`);
  for (const [dir, what] of [
    [dirs.shelfDir, "shelf folder"],
    [dirs.outDir, "build folder"],
  ] as const) {
    if (await isInside(keyFile, dir))
      throw new UsageError(`the private key ${keyFile} is inside the ${what} ${dir}; keep it outside, where nothing publishes or copies it`);
  }
  let pem: string;
  try {
    pem = await readFile(keyFile, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read the private key ${keyFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  try {
    return { key: await importPkcs8Pem(pem), keyFile, origin, keyId };
  } catch (error) {
    if (error instanceof SigningError) throw new CliError(`${keyFile}: ${error.message}`);
    throw error;
  }
}

/** Signs every skill of a built generation (its records with their digests) and the generation. */
export async function signBuilt(
  built: { id: string; records: readonly { record: SkillRecord; sha256: string }[] },
  options: SigningOptions,
): Promise<SignaturesDocument> {
  const records = built.records.map(({ record, sha256 }) => ({ ...record, sha256 }));
  try {
    return await signGeneration(built.id, records, options.key, { origin: options.origin, keyId: options.keyId });
  } catch (error) {
    if (error instanceof SigningError) throw new CliError(`cannot sign the build: ${error.message}`);
    throw error;
  }
}

/**
 * Writes a new file with mode 0600, refusing to overwrite anything (O_EXCL), so a key is never
 * replaced by accident and never world-readable, even for a moment.
 */
export async function writeSecretFile(file: string, text: string): Promise<void> {
  const existing = await lstat(file).catch(() => null);
  if (existing) throw new CliError(`refusing to overwrite ${file}: it exists; choose another --out or remove it yourself`);
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, "wx", 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw new CliError(`refusing to overwrite ${file}: it exists; choose another --out or remove it yourself`);
    throw new CliError(`cannot write ${file}: ${code ?? (error as Error).message}`);
  }
  try {
    await handle.writeFile(text);
    await handle.chmod(0o600); // the umask may have narrowed it further, never widened; make it exact
  } finally {
    await handle.close();
  }
}
