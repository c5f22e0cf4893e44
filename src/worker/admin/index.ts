// The admin API (mounted at /admin/v1): everything that writes storage, behind the publish
// token. Handlers are thin; ShelfStore (store.ts) holds the storage logic. docs/storage.md
// describes the publish protocol and docs/deploy.md how to set the token.
import { Hono, type Context } from "hono";
import { httpError } from "../http/errors.ts";
import type { Clock, StorageBindings } from "../storage/reader.ts";
import { publishAuth, type PublishAuthBindings } from "./auth.ts";
import { AdminError, MAX_DOCUMENT_BYTES, MAX_JSON_BODY_BYTES, readBodyCapped, ShelfStore, type DocumentKind } from "./store.ts";

/** The bindings the admin API uses. */
export type AdminBindings = StorageBindings &
  PublishAuthBindings & {
    /** Overrides gc's settle wait in milliseconds (tests set 0; never lower it in production). */
    SHELF_GC_SETTLE_MS?: string;
  };

/** Options for {@link adminRoutes}. */
export interface AdminRoutesOptions {
  /** Milliseconds since the epoch, for publish times and gc's grace period. */
  clock?: Clock;
  /** Waits (gc's settle period); tests pass a no-op. */
  sleep?: (ms: number) => Promise<void>;
}

function toHttp(err: unknown): never {
  if (err instanceof AdminError) throw httpError(err.status, err.code, err.message, err.headers, err.details);
  throw err;
}

async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  const length = contentLength(c);
  if (length !== null && length > MAX_JSON_BODY_BYTES) throw httpError(413, "too_large", `The request body is larger than ${MAX_JSON_BODY_BYTES} bytes.`);
  const bytes = await readBodyCapped(c.req.raw.body, MAX_JSON_BODY_BYTES, "request body").catch(toHttp);
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw httpError(400, "bad_request", "The request body must be a JSON object.");
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw httpError(400, "bad_request", "The request body must be a JSON object.");
  return body as Record<string, unknown>;
}

function contentLength(c: Context): number | null {
  const header = c.req.header("Content-Length");
  if (header === undefined || !/^\d+$/.test(header)) return null;
  return Number(header);
}

function optionalId(value: unknown, field: string): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== "string") throw httpError(400, "bad_request", `"${field}" must be a generation id or null.`);
  return value;
}

/**
 * The admin sub-app. Every route requires the publish token.
 * @example app.route("/admin/v1", adminRoutes())
 */
export function adminRoutes(options: AdminRoutesOptions = {}): Hono<{ Bindings: AdminBindings }> {
  const admin = new Hono<{ Bindings: AdminBindings }>();
  const store = (c: Context<{ Bindings: AdminBindings }>) => {
    const settle = c.env.SHELF_GC_SETTLE_MS;
    return new ShelfStore(c.env, options.clock, options.sleep, settle !== undefined && /^\d+$/.test(settle) ? Number(settle) : undefined);
  };
  admin.use("*", async function adminNoStore(c, next) {
    await next();
    c.res.headers.set("Cache-Control", "no-store");
  });
  admin.use("*", publishAuth());

  admin.post("/missing", async (c) => {
    const body = await jsonBody(c);
    return c.json({ missing: await store(c).missing(body).catch(toHttp) });
  });

  admin.put("/blobs/:sha", async (c) => {
    const result = await store(c).putBlob(c.req.param("sha"), c.req.raw).catch(toHttp);
    return c.json(result, result.stored ? 201 : 200);
  });

  const documentRoute = (kind: DocumentKind) => async (c: Context<{ Bindings: AdminBindings }>) => {
    const length = contentLength(c);
    if (length !== null && length > MAX_DOCUMENT_BYTES) throw httpError(413, "too_large", `The ${kind} is larger than ${MAX_DOCUMENT_BYTES} bytes.`);
    const bytes = await readBodyCapped(c.req.raw.body, MAX_DOCUMENT_BYTES, kind).catch(toHttp);
    const result = await store(c).putDocument(kind, c.req.param("sha")!, bytes).catch(toHttp);
    return c.json(result, result.stored ? 201 : 200);
  };
  admin.put("/records/:sha", documentRoute("record"));
  admin.put("/shards/:sha", documentRoute("shard"));
  admin.put("/generations/:sha", documentRoute("generation"));

  admin.get("/pointer", async (c) => {
    const current = await store(c).readPointer().catch(toHttp);
    return c.json({ pointer: current?.pointer ?? null });
  });

  admin.post("/pointer", async (c) => {
    const body = await jsonBody(c);
    if (typeof body.generation !== "string") throw httpError(400, "bad_request", `"generation" is required.`);
    const pointer = await store(c).movePointer(body.generation, optionalId(body.previous, "previous"), "publish").catch(toHttp);
    return c.json({ pointer });
  });

  admin.post("/rollback", async (c) => {
    const body = await jsonBody(c);
    if (typeof body.generation !== "string") throw httpError(400, "bad_request", `"generation" is required.`);
    const pointer = await store(c).rollback(body.generation, optionalId(body.previous, "previous")).catch(toHttp);
    return c.json({ pointer });
  });

  admin.get("/history", async (c) => {
    const current = await store(c).readPointer().catch(toHttp);
    return c.json({ current: current?.pointer.generation ?? null, seq: current?.pointer.seq ?? 0, history: current?.pointer.history ?? [] });
  });

  admin.get("/advisories", async (c) => c.json((await store(c).readAdvisories().catch(toHttp)).record));

  admin.post("/advisories", async (c) => {
    const body = await jsonBody(c);
    return c.json(await store(c).mergeAdvisories(body.advisories).catch(toHttp));
  });

  admin.post("/gc", async (c) => {
    const body = await jsonBody(c);
    const num = (v: unknown, field: string) => {
      if (v === undefined) return undefined;
      if (typeof v !== "number") throw httpError(400, "bad_request", `"${field}" must be a number.`);
      return v;
    };
    const report = await store(c)
      .gc({ keep: num(body.keep, "keep"), graceSeconds: num(body.grace_seconds, "grace_seconds"), apply: body.apply === true })
      .catch(toHttp);
    return c.json(report);
  });

  admin.notFound(() => {
    throw httpError(404, "not_found", "No such admin route; see docs/storage.md for the admin API.");
  });
  return admin;
}
