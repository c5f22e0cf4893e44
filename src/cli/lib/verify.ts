// `skillshelf verify`'s file side: the keys the user trusts (a keys file, or pinned on first use
// from the shelf's keys.json); the verification itself is core's (src/core/signing/verify-shelf.ts).
import { readFile } from "node:fs/promises";
import { KeysDocumentSchema, type KeysDocument } from "../../core/signing/keys.ts";
import { shelfFetcher, ShelfFetchError } from "../../core/signing/verify-shelf.ts";
import { CliError, UsageError } from "./cli.ts";
import { writeSecretFile } from "./signing.ts";

/** The keys file does not exist (trust on first use then fetches and pins the shelf's keys). */
export class KeysFileMissingError extends UsageError {}

/** Reads a keys file ({origin?, keys: [{key_id, public_key, status}]}, as keys.json or keygen's entry). */
export async function readKeysFile(file: string): Promise<KeysDocument["keys"]> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new KeysFileMissingError(`cannot read keys file ${file}: ENOENT`);
    throw new UsageError(`cannot read keys file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const parsed = KeysDocumentSchema.partial({ origin: true }).safeParse(json);
  if (!parsed.success) throw new UsageError(`${file} is not a keys file: ${parsed.error.issues[0]!.path.join(".")}: ${parsed.error.issues[0]!.message}`);
  return parsed.data.keys;
}

/**
 * Trust on first use: the keys pinned in `file`, or (when it does not exist) the shelf's
 * keys.json, written there (0600, never overwritten) and then trusted.
 */
export async function pinnedKeys(
  file: string,
  url: string,
  token: string | undefined,
  fetchImpl: typeof fetch = fetch,
): Promise<{ keys: KeysDocument["keys"]; pinnedNow: boolean }> {
  try {
    return { keys: await readKeysFile(file), pinnedNow: false };
  } catch (error) {
    if (!(error instanceof KeysFileMissingError)) throw error;
  }
  let fetched: unknown;
  try {
    fetched = await shelfFetcher(fetchImpl, token).json(`${url.replace(/\/+$/, "")}/.well-known/skillshelf/keys.json`);
  } catch (error) {
    if (error instanceof ShelfFetchError) throw new CliError(`cannot pin the shelf's keys: ${error.message}`);
    throw error;
  }
  const doc = KeysDocumentSchema.safeParse(fetched);
  if (!doc.success) throw new CliError(`the shelf's keys.json is not a keys document: ${doc.error.issues[0]!.message}`);
  await writeSecretFile(file, `${JSON.stringify(doc.data, null, 2)}\n`);
  return { keys: doc.data.keys, pinnedNow: true };
}
