// Resource encoding and classification against the goldens written by the real agentskills-core:
// text, binary, oversized and mislabelled files, plus every extension of the media-type table.
import { describe, expect, it } from "vitest";
import golden from "../../goldens/agentskills/resources.json";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { classifyResource, encodeResourceContent, guessMediaType } from "../../../src/core/disclosure/resources.ts";

type Spec = { b64?: string; prefix_b64?: string; size?: number; fill?: number };

function fromBase64(b64: string): Uint8Array {
  const binary = atob(b64);
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** Rebuilds the exact input bytes: inline base64, or a prefix padded with one byte to a size. */
function build(spec: Spec): Uint8Array {
  if (spec.b64 !== undefined) return fromBase64(spec.b64);
  const prefix = fromBase64(spec.prefix_b64!);
  const out = new Uint8Array(spec.size!).fill(spec.fill!);
  out.set(prefix, 0);
  return out;
}

type Outcome = { output?: unknown; output_sha256?: string; output_length?: number; error?: { message: string } };

describe.each(golden.cases)("resource golden: $name", (c) => {
  const bytes = build(c.bytes as Spec);
  const options = c.options as { max_inline_binary_bytes?: number; max_inline_image_bytes?: number };

  it("encodes as the library does", async () => {
    const expected = (c as { encode?: Outcome }).encode;
    if (!expected) return;
    const run = () => encodeResourceContent(c.file_name, bytes, { maxInlineBinaryBytes: options.max_inline_binary_bytes });
    if (expected.error) {
      expect(run).toThrow(RangeError);
      return;
    }
    const text = run();
    if (expected.output_sha256 !== undefined) {
      expect([...text].length).toBe(expected.output_length);
      expect(await sha256Hex(text)).toBe(expected.output_sha256);
    } else {
      expect(text).toBe(expected.output);
    }
  });

  it("classifies as the library does", () => {
    const expected = (c as { classify?: Outcome }).classify;
    if (!expected) return;
    const run = () => classifyResource(c.file_name, bytes, { maxInlineImageBytes: options.max_inline_image_bytes });
    if (expected.error) {
      expect(run).toThrow(RangeError);
      return;
    }
    expect(run()).toEqual(expected.output);
  });
});

describe("media type table", () => {
  it("guesses every extension of CPython's built-in table as the library does", () => {
    for (const [name, type] of Object.entries(golden.media_type_guesses)) expect([name, guessMediaType(name)]).toEqual([name, type]);
    expect(Object.keys(golden.media_type_guesses).length).toBeGreaterThan(100);
  });
});
