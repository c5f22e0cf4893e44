// A stored file's whole bytes for the MCP views, checked against the manifest before they are
// handed to a client: SkillsClient verifies size and digest too, but an answer we know is wrong
// should be an error here, not a verification failure there.
import { sha256Hex } from "../../core/skill/hash.ts";
import type { ShelfFile } from "../shelf/service.ts";
import { MissingObjectError } from "../storage/errors.ts";
import { r2Key } from "../storage/keys.ts";

/**
 * The file's bytes, verified against its recorded size and SHA-256 (one R2 read).
 * @throws StorageUnavailableError (MissingObjectError) when the stored bytes are absent or differ
 */
export async function readVerified(file: ShelfFile): Promise<Uint8Array> {
  const bytes = new Uint8Array(await new Response(await file.open()).arrayBuffer());
  if (bytes.byteLength !== file.size || (await sha256Hex(bytes)) !== file.sha256) throw new MissingObjectError(r2Key("blob", file.sha256));
  return bytes;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * The bytes as text when they decode as UTF-8 losslessly (a BOM kept), else undefined: what
 * decides between a `text` and a base64 `blob` content.
 * @example losslessText(new Uint8Array([0xef, 0xbb, 0xbf, 0x61])) // => "\ufeffa"
 */
export function losslessText(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}
