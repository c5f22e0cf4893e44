// Reading JSON from bytes that anyone holding the publish token may send: strict UTF-8, nesting
// bounded before anything recursive runs, and no lone surrogates, each refusal with the
// contract's code, so hostile bytes are a clean 400 or 413 and never a crash further in.
import { MAX_JSON_DEPTH } from "./contract.ts";

/** JSON read from bytes, or why it cannot be (a code of the contract with its one-line message). */
export type JsonText = { ok: true; value: unknown; text: string } | { ok: false; code: "malformed_json" | "invalid_text" | "too_deep"; message: string };

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The deepest nesting of arrays and objects in JSON text, stopping as soon as it passes `limit`
 * (strings are skipped, so brackets inside them do not count). Iterative: safe on any input.
 * @example jsonDepth('{"a":[1]}', 128) // 2
 */
export function jsonDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i++; // a backslash escapes the next character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) {
      inString = true;
    } else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (ch === 0x5d || ch === 0x7d) {
      depth--;
    }
  }
  return deepest;
}

/** True when any string in the (depth-bounded) value, key or element, holds a lone surrogate. */
function hasLoneSurrogate(value: unknown): boolean {
  if (typeof value === "string") return LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.some(hasLoneSurrogate);
  if (value !== null && typeof value === "object") return Object.entries(value).some(([k, v]) => LONE_SURROGATE.test(k) || hasLoneSurrogate(v));
  return false;
}

/**
 * Reads JSON from bytes: `invalid_text` unless they are UTF-8 (a byte order mark is not JSON),
 * `too_deep` past `maxDepth`, `malformed_json` unless they parse, and `invalid_text` again when a
 * string escapes a lone surrogate (`"\ud800"`), which no UTF-8 text can hold. `what` names the body.
 * @example readJsonText(bytes, "record") // { ok: true, value, text } or { ok: false, code, message }
 */
export function readJsonText(bytes: Uint8Array, what: string, maxDepth = MAX_JSON_DEPTH): JsonText {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, code: "invalid_text", message: `the ${what} is not UTF-8 text` };
  }
  if (jsonDepth(text, maxDepth) > maxDepth) {
    return { ok: false, code: "too_deep", message: `the ${what} nests arrays and objects more than ${maxDepth} deep` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, code: "malformed_json", message: `the ${what} is not JSON` };
  }
  if (hasLoneSurrogate(value)) {
    return {
      ok: false,
      code: "invalid_text",
      message: `the ${what} holds a lone surrogate escape (such as \\ud800), which is not Unicode text`,
    };
  }
  return { ok: true, value, text };
}
