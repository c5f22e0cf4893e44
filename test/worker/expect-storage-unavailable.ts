// The answer every route gives when storage fails, asserted one way for the read and admin tests:
// 503 with a short Retry-After, never cached, no internal detail, `storage_unavailable` as its code.
import { expect } from "vitest";

/**
 * Asserts `res` is the storage-unavailable answer. `allowEmptyBody` accepts a body-less answer
 * (a HEAD request's); otherwise the JSON body must be there.
 * @example await expectStorageUnavailable(await call(request), "GET /skills/index.json")
 */
export async function expectStorageUnavailable(res: Response, label: string, options: { allowEmptyBody?: boolean } = {}): Promise<void> {
  expect(res.status, label).toBe(503);
  const retryAfter = Number(res.headers.get("Retry-After"));
  expect(retryAfter, label).toBeGreaterThan(0);
  expect(retryAfter, label).toBeLessThanOrEqual(30);
  expect(res.headers.get("Cache-Control"), label).toBe("no-store");
  const text = await res.text();
  expect(text, label).not.toContain("internal detail");
  if (options.allowEmptyBody && text === "") return;
  // The plain answer names it `error`; a /v1 problem document, `code`.
  const body = JSON.parse(text) as { error?: string; code?: string };
  expect(body.error ?? body.code, label).toBe("storage_unavailable");
}
