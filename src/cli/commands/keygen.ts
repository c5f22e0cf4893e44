// skillshelf keygen --out <file> [--key-id <id>] [--shelf <dir>] [--build <dir>] [--json]: writes a new
// Ed25519 private key as PKCS#8 PEM (mode 0600, never over an existing file, never inside a shelf
// or build folder) and prints its public half as the Worker's SHELF_SIGNING_KEYS entry.
import { stat } from "node:fs/promises";
import path from "node:path";
import { exportPkcs8Pem, generateSigningKey, toBase64 } from "../../core/signing/ed25519.ts";
import { KeyIdSchema } from "../../core/signing/keys.ts";
import { parseCommandArgs, UsageError, type Command } from "../lib/cli.ts";
import { isInside } from "../lib/paths.ts";
import { SIGN_KEY_ENV, writeSecretFile } from "../lib/signing.ts";
import { DEFAULT_BUILD_DIR } from "./build.ts";

const USAGE = "skillshelf keygen --out <file> [--key-id <id>] [--shelf <dir>] [--build <dir>] [--json]";
/** Where the shelf folder is unless --shelf says otherwise (the curated shelf's name). */
const DEFAULT_SHELF_DIR = "shelf";

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

/** A folder that holds a shelf (skills and its record files) or a build (a manifest and its objects). */
async function folderKind(dir: string): Promise<"shelf folder" | "build folder" | null> {
  if ((await exists(path.join(dir, "manifest.json"))) && (await exists(path.join(dir, "blobs")))) return "build folder";
  for (const marker of ["skills", "validations.yaml", "advisories.yaml", "catalog.yaml", ".seeded.json"])
    if (await exists(path.join(dir, marker))) return "shelf folder";
  return null;
}

export const run: Command = async (ctx) => {
  const { values, positionals } = parseCommandArgs(
    ctx.args,
    { out: { type: "string" }, "key-id": { type: "string" }, shelf: { type: "string" }, build: { type: "string" }, json: { type: "boolean" } },
    USAGE,
  );
  if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}\nusage: ${USAGE}`);
  if (!values.out) throw new UsageError(`--out <file> is required: where to write the private key (outside the shelf and the build)\nusage: ${USAGE}`);
  const keyId = values["key-id"] ?? new Date().toISOString().slice(0, 10);
  const id = KeyIdSchema.safeParse(keyId);
  if (!id.success) throw new UsageError(`--key-id ${JSON.stringify(keyId)}: ${id.error.issues[0]!.message}`);
  const out = path.resolve(values.out);
  // The key must never be published or copied: not inside the named (or default) shelf and build
  // folders, nor inside any folder that looks like one.
  for (const [dir, what] of [
    [values.shelf ?? DEFAULT_SHELF_DIR, "shelf folder"],
    [values.build ?? DEFAULT_BUILD_DIR, "build folder"],
  ] as const) {
    if (await isInside(out, dir)) throw new UsageError(`refusing to write the private key inside the ${what} ${dir}; pass --out a path outside it`);
  }
  for (let dir = path.dirname(out); ; dir = path.dirname(dir)) {
    const kind = await folderKind(dir);
    if (kind) throw new UsageError(`refusing to write the private key inside ${dir}, which looks like a ${kind}; pass --out a path outside it`);
    if (path.dirname(dir) === dir) break;
  }
  const key = await generateSigningKey();
  await writeSecretFile(out, await exportPkcs8Pem(key.privateKey));
  const publicKey = toBase64(key.publicKey);
  const entry = { key_id: keyId, public_key: publicKey, status: "active" };
  if (values.json) {
    ctx.stdout(`${JSON.stringify({ ok: true, private_key_file: values.out, ...entry }, null, 2)}\n`);
    return 0;
  }
  ctx.stdout(
    `wrote the private key to ${values.out} (mode 0600; keep it secret, outside the shelf)\n` +
      `key id:     ${keyId}\npublic key: ${publicKey}\n\n` +
      `The Worker's configuration (wrangler.toml [vars], per environment):\n  SHELF_SIGNING_KEYS = '${JSON.stringify([entry])}'\n` +
      `Sign builds with: skillshelf build <shelf-dir> --sign-key ${values.out} --key-id ${keyId} --origin <your shelf's URL> (or set ${SIGN_KEY_ENV})\n`,
  );
  return 0;
};
