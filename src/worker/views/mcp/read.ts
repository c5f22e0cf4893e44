// Whether stored bytes go out as MCP `text` or as a base64 `blob` (they are read, verified, with
// src/worker/shelf/disclosure.ts, through ShelfFile.readChecked).
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
