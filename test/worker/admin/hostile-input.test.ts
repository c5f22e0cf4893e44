// Hostile input to the admin API (issue 11 item 7): malformed JSON and text that is not UTF-8
// (or holds a lone surrogate) are 400, bodies over the size or depth cap 413, well-formed bodies
// that break the route's schema 422, each with its contract code; a client that disconnects
// mid-body gets a 400, never a 500 logged as a bug; and nothing is stored for any of them.
import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { canonicalJson } from "../../../src/core/generation/canonical-json.ts";
import { ADMIN_ERRORS, MAX_JSON_DEPTH, type AdminErrorCode } from "../../../src/core/publish/contract.ts";
import { sha256Hex } from "../../../src/core/skill/hash.ts";
import { resetStorageMemory } from "../../../src/worker/storage/index.ts";
import { adminEnv, bucketKeys, buildGeneration, skillInput, TOKEN, WORKER_URL, workerFetch } from "./helpers.ts";

const encoder = new TextEncoder();

function request(method: string, path: string, body: BodyInit | Uint8Array, headers: Record<string, string> = {}): Request {
  return new Request(`${WORKER_URL}/admin/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${TOKEN}`, ...headers },
    body: body as BodyInit,
    duplex: "half",
  } as RequestInit);
}

async function expectRefusal(res: Response, code: AdminErrorCode, label: string): Promise<{ message: string }> {
  const text = await res.text();
  expect(res.status, `${label}: ${text}`).toBe(ADMIN_ERRORS[code]);
  const body = JSON.parse(text) as { error: string; message: string };
  expect(body.error, label).toBe(code);
  expect(body.message.length, label).toBeGreaterThan(0);
  return body;
}

/** `[[[…1…]]]` nested `depth` deep, as bytes (never parsed here: JSON.stringify would recurse). */
function nested(depth: number, open = "[", close = "]", inner = "1"): Uint8Array {
  return encoder.encode(open.repeat(depth) + inner + close.repeat(depth));
}

let errors: ReturnType<typeof vi.spyOn>;
beforeEach(async () => {
  await reset();
  resetStorageMemory();
  errors = vi.spyOn(console, "error");
});
afterEach(() => {
  // No hostile input is a bug: nothing is logged as an unhandled error or a storage failure.
  expect(errors).not.toHaveBeenCalled();
  errors.mockRestore();
});

describe("JSON request bodies", () => {
  it("answer 400 malformed_json, 400 invalid_text, 413 too_deep and 422 invalid_request, each with its code", async () => {
    const call = workerFetch(await adminEnv());
    const cases: [string, Uint8Array | string, AdminErrorCode][] = [
      ["not JSON", "{nope", "malformed_json"],
      ["empty", "", "malformed_json"],
      ["trailing garbage", '{"blob":[]} x', "malformed_json"],
      ["invalid UTF-8", new Uint8Array([0x7b, 0x22, 0x62, 0xff, 0x22, 0x3a, 0x5b, 0x5d, 0x7d]), "invalid_text"],
      ["an encoded surrogate (CESU-8)", new Uint8Array([0x7b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x3a, 0x31, 0x7d]), "invalid_text"],
      ["a lone surrogate escape in a value", '{"blob":["\\ud800"]}', "invalid_text"],
      ["a lone low surrogate escape in a key", '{"\\udc00":1}', "invalid_text"],
      ["nested 100,000 deep", encoder.encode(`{"blob":${new TextDecoder().decode(nested(100_000))}}`), "too_deep"],
      ["objects nested 100,000 deep", nested(100_000, '{"a":', "}"), "too_deep"],
      ["an array, not an object", "[1,2]", "invalid_request"],
      ["null", "null", "invalid_request"],
      ["a wrong field type", '{"blob":"x"}', "invalid_request"],
    ];
    for (const [label, body, code] of cases) {
      await expectRefusal(await call(request("POST", "/missing", body, { "Content-Type": "application/json" })), code, `POST /missing ${label}`);
    }
    // Within the depth cap a document is read as usual.
    const deepButFine = `{"blob":[],"extra":${"[".repeat(MAX_JSON_DEPTH - 1)}${"]".repeat(MAX_JSON_DEPTH - 1)}}`;
    expect((await call(request("POST", "/missing", deepButFine))).status).toBe(200);
    // A well-formed pair of surrogate escapes is a character like any other.
    expect((await call(request("POST", "/missing", '{"blob":[],"note":"\\ud83d\\ude00"}'))).status).toBe(200);

    for (const [label, body, code] of [
      ["POST /pointer {}", "{}", "invalid_request"],
      ["POST /pointer bad id", '{"generation":"xyz","previous":null}', "invalid_request"],
      ["POST /rollback lone surrogate", '{"generation":"\\ud800","previous":null}', "invalid_text"],
      [
        "POST /advisories lone surrogate",
        `{"advisories":[{"name":"\\ud800 lone","source":"s","official_intent":"i","hidden_issue":"h","severity":"high","reference":"r"}]}`,
        "invalid_text",
      ],
      ["POST /advisories deep", `{"advisories":${new TextDecoder().decode(nested(100_000))}}`, "too_deep"],
      ["POST /gc deep", `{"keep":${new TextDecoder().decode(nested(100_000))}}`, "too_deep"],
      ["POST /gc bad keep", '{"keep":"two"}', "invalid_request"],
    ] as const) {
      await expectRefusal(await call(request("POST", label.split(" ")[1]!, body)), code, label);
    }
    expect(await bucketKeys(env.SHELF_BUCKET)).toEqual([]);
  });
});

describe("document uploads", () => {
  it("answer 400, 413 or 422 for malformed, deep, non-UTF-8, lone-surrogate and schema-breaking documents, storing nothing", async () => {
    const call = workerFetch(await adminEnv());
    const built = await buildGeneration([await skillInput("alpha")]);
    const record = JSON.parse(new TextDecoder().decode(built.objects.find((o) => o.kind === "record")!.bytes)) as Record<string, unknown>;
    // Canonical bytes that carry a lone surrogate escape (canonicalize itself refuses to write one).
    const lone = encoder.encode(new TextDecoder().decode(canonicalJson({ ...record, description: "LONE lone" })).replace("LONE", "\\ud800"));
    expect(new TextDecoder().decode(lone)).toContain('"\\ud800 lone"');
    const invalidUtf8 = new Uint8Array([...canonicalJson({ a: "x" }).slice(0, -2), 0xc3, 0x28, 0x22, 0x7d]);
    const cases: [string, Uint8Array, AdminErrorCode][] = [
      ["not JSON", encoder.encode("{"), "malformed_json"],
      ["invalid UTF-8", invalidUtf8, "invalid_text"],
      ["a lone surrogate", lone, "invalid_text"],
      ["nested 100,000 deep", nested(100_000), "too_deep"],
      ["objects nested 100,000 deep", nested(100_000, '{"a":', "}"), "too_deep"],
      ["not canonical", encoder.encode(JSON.stringify(record, null, 1)), "not_canonical"],
      ["not a record", canonicalJson({ schema: "skillshelf.skill/1" }), "invalid_document"],
      ["a list", canonicalJson([record]), "invalid_document"],
    ];
    for (const kind of ["records", "shards", "generations"] as const) {
      for (const [label, bytes, code] of cases) {
        // Under its own SHA-256, so only the content decides.
        await expectRefusal(await call(request("PUT", `/${kind}/${await sha256Hex(bytes)}`, bytes)), code, `PUT /${kind} ${label}`);
      }
    }
    expect(await bucketKeys(env.SHELF_BUCKET)).toEqual([]);
  });
});

describe("a client that disconnects mid-body", () => {
  /** A body that sends `sent` bytes, then fails as a dropped connection does. */
  function dropped(sent = 1000): ReadableStream<Uint8Array> {
    let done = false;
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        if (done) return controller.error(new TypeError("Network connection lost."));
        done = true;
        controller.enqueue(new Uint8Array(sent).fill(0x20));
      },
    });
  }

  it("gets 400 incomplete_body on every route that reads a body, is not logged as a bug, and stores nothing", async () => {
    const call = workerFetch(await adminEnv());
    const sha = "c".repeat(64);
    for (const [method, path] of [
      ["POST", "/missing"],
      ["POST", "/pointer"],
      ["POST", "/advisories"],
      ["POST", "/gc"],
      ["PUT", `/records/${sha}`],
      ["PUT", `/shards/${sha}`],
      ["PUT", `/generations/${sha}`],
      ["PUT", `/blobs/${sha}`],
    ] as const) {
      await expectRefusal(await call(request(method, path, dropped())), "incomplete_body", `${method} ${path} (chunked)`);
      // With a Content-Length promising more than arrives (a blob then streams straight to R2).
      await expectRefusal(await call(request(method, path, dropped(), { "Content-Length": "5000" })), "incomplete_body", `${method} ${path} (Content-Length)`);
    }
    expect(await bucketKeys(env.SHELF_BUCKET)).toEqual([]);
  });
});
