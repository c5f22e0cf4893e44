// The admin API (mounted at /admin/v1): everything that writes storage, behind the publish
// token. Each route of the contract (src/core/publish/contract.ts) is bound here with
// @hono/zod-openapi, which validates requests against the contract's schemas; handlers are thin
// calls into one module per job (uploads, pointer, advisories, gc). Refusals are thrown as
// adminError (a ShelfError) and rendered by the app's one onError. Each new history entry is then
// announced to the webhook receivers after the response (src/worker/webhooks). docs/storage.md describes the protocol.
import { noStore, withHeaders } from "../http/headers.ts";
import { createRoute, OpenAPIHono, type Hook } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { z } from "zod";
import { ADMIN_API, requestRefusal, type AdminRoute } from "../../core/publish/contract.ts";
import type { Clock, StorageBindings } from "../storage/index.ts";
import { mergeAdvisories, readAdvisories } from "./advisories.ts";
import { publishAuth, type PublishAuthBindings } from "./auth.ts";
import { cappedBody, jsonObjectBody } from "./body.ts";
import { adminError } from "./errors.ts";
import { GarbageCollector } from "./gc.ts";
import { historyOf, movePointer, readPointer, recordAdvisoryChange, rollback, type RecordedEntry } from "./pointer.ts";
import { AdminStorage } from "./storage.ts";
import { enforceSignaturePolicy, putSignatures, storedSignaturesSha } from "./signatures.ts";
import { presence, putBlob, putDocument } from "./uploads.ts";
import { rebuildVersionIndex, versionIndexAfterMove } from "./versions.ts";
import { VERSIONS_ADMIN_API } from "../../core/versions/admin.ts";
import type { SigningBindings } from "../shelf/signing.ts";
import { announceEntry, type WebhookEnv } from "../webhooks/index.ts";
import type { DeliverOptions } from "../webhooks/deliver.ts";

/** The bindings the admin API uses. */
export type AdminBindings = StorageBindings &
  PublishAuthBindings &
  SigningBindings &
  WebhookEnv & {
    /** Overrides gc's settle wait in milliseconds (tests set 0; never lower it in production). */
    SHELF_GC_SETTLE_MS?: string;
  };

type AdminEnv = { Bindings: AdminBindings };

/** Options for {@link adminRoutes}. */
export interface AdminRoutesOptions {
  /** Milliseconds since the epoch, for publish times and gc's grace period. */
  clock?: Clock;
  /** Waits (gc's settle period); tests pass a no-op. */
  sleep?: (ms: number) => Promise<void>;
  /** Webhook delivery (tests shorten its timing). */
  webhooks?: DeliverOptions;
}

/** Hands a history entry just written to the webhooks, which send it after the response. */
function announce(c: Context<AdminEnv>, recorded: RecordedEntry, previous: string | null, options: DeliverOptions | undefined): void {
  const entry = recorded.pointer.history[0]!;
  announceEntry(
    c,
    {
      origin: new URL(c.req.url).origin,
      seq: entry.seq,
      action: entry.action,
      at: entry.at,
      generation: entry.generation,
      previous,
      changes: recorded.changes,
    },
    options,
  );
}

/** A request that fails its route's schema: the contract says how it is refused (a body 422, a path parameter 400). */
const refuseInvalid: Hook<unknown, AdminEnv, string, undefined> = (result) => {
  if (result.success) return;
  const refusal = requestRefusal(result.error.issues, result.target === "param" ? "param" : "json");
  throw adminError(refusal.code, refusal.message);
};

/** A route with a JSON body: capped, read as a JSON object, then validated against the contract. */
function jsonRoute<const R extends AdminRoute & { body: { type: "json"; json: z.ZodType } }>(route: R) {
  return createRoute({
    method: route.method,
    path: route.path,
    summary: route.summary,
    middleware: [cappedBody(route.body.maxBytes, "request body"), jsonObjectBody()] as MiddlewareHandler[],
    request: { body: { required: true, content: { "application/json": { schema: route.body.json as R["body"]["json"] } } } },
    responses: { 200: { description: route.summary, content: { "application/json": { schema: route.response as R["response"] } } } },
  });
}

/** A route without a body. */
function readRoute<const R extends AdminRoute>(route: R) {
  return createRoute({
    method: route.method,
    path: route.path,
    summary: route.summary,
    responses: { 200: { description: route.summary, content: { "application/json": { schema: route.response as R["response"] } } } },
  });
}

/** An upload: raw bytes under `{sha}` (documents capped by body-limit; blobs stream to R2 with their own counter). */
function uploadRoute<const R extends AdminRoute & { params: z.ZodObject<{ sha: z.ZodString }>; body: { type: "bytes" } }>(
  route: R,
  middleware: MiddlewareHandler[],
) {
  const answer = { description: route.summary, content: { "application/json": { schema: route.response as R["response"] } } };
  return createRoute({
    method: route.method,
    path: route.path,
    summary: route.summary,
    middleware,
    request: {
      params: route.params as R["params"],
      body: { required: true, content: { "application/octet-stream": { schema: z.string().meta({ format: "binary" }) } } },
    },
    responses: { 200: { ...answer, description: "Already stored" }, 201: { ...answer, description: "Stored" } },
  });
}

/**
 * The admin sub-app. Every route requires the publish token.
 * @example app.route("/admin/v1", adminRoutes())
 */
export function adminRoutes(options: AdminRoutesOptions = {}): OpenAPIHono<AdminEnv> {
  const admin = new OpenAPIHono<AdminEnv>({ defaultHook: refuseInvalid });
  // Read per request, not captured: tests fake the clock after the app is built.
  const clock: Clock = options.clock ?? (() => Date.now());
  const storage = (c: Context<AdminEnv>) => new AdminStorage(c.env);
  const gc = (c: Context<AdminEnv>) => {
    const settle = c.env.SHELF_GC_SETTLE_MS;
    return new GarbageCollector(storage(c), {
      clock,
      sleep: options.sleep,
      settleMs: settle !== undefined && /^\d+$/.test(settle) ? Number(settle) : undefined,
    });
  };
  admin.use("*", withHeaders(noStore));
  admin.use("*", publishAuth());

  admin.openapi(jsonRoute(ADMIN_API.missing), async (c) => c.json({ missing: await presence(storage(c), c.req.valid("json")) }, 200));

  admin.openapi(uploadRoute(ADMIN_API.putBlob, []), async (c) => {
    const result = await putBlob(storage(c), c.req.valid("param").sha, c.req.raw);
    return result.stored ? c.json(result, 201) : c.json(result, 200);
  });
  for (const [route, kind] of [
    [ADMIN_API.putRecord, "record"],
    [ADMIN_API.putShard, "shard"],
    [ADMIN_API.putGeneration, "generation"],
  ] as const) {
    admin.openapi(uploadRoute(route, [cappedBody(route.body.maxBytes, kind)]), async (c) => {
      const bytes = new Uint8Array(await c.req.arrayBuffer());
      const result = await putDocument(storage(c), clock, kind, c.req.valid("param").sha, bytes);
      return result.stored ? c.json(result, 201) : c.json(result, 200);
    });
  }

  admin.openapi(uploadRoute(ADMIN_API.putSignatures, [cappedBody(ADMIN_API.putSignatures.body.maxBytes, "signatures")]), async (c) => {
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    const result = await putSignatures(storage(c), clock, c.env, c.req.valid("param").sha, bytes);
    return result.stored ? c.json(result, 201) : c.json(result, 200);
  });
  const signaturesRoute = ADMIN_API.signatures;
  admin.openapi({ ...readRoute(signaturesRoute), request: { params: signaturesRoute.params } }, async (c) =>
    c.json({ sha256: await storedSignaturesSha(storage(c), c.req.valid("param").sha) }, 200),
  );

  admin.openapi(readRoute(ADMIN_API.pointer), async (c) => c.json({ pointer: (await readPointer(storage(c)))?.pointer ?? null }, 200));

  admin.openapi(jsonRoute(ADMIN_API.movePointer), async (c) => {
    const { generation, previous } = c.req.valid("json");
    const policy = (id: string) => enforceSignaturePolicy(storage(c), c.env, id);
    const moved = await movePointer(storage(c), clock, generation, previous ?? null, "publish", policy);
    await versionIndexAfterMove(storage(c), clock, moved.pointer);
    announce(c, moved, previous ?? null, options.webhooks);
    return c.json({ pointer: moved.pointer }, 200);
  });

  admin.openapi(jsonRoute(ADMIN_API.rollback), async (c) => {
    const { generation, previous } = c.req.valid("json");
    const policy = (id: string) => enforceSignaturePolicy(storage(c), c.env, id);
    const moved = await rollback(storage(c), clock, generation, previous ?? null, policy);
    await versionIndexAfterMove(storage(c), clock, moved.pointer);
    announce(c, moved, previous ?? null, options.webhooks);
    return c.json({ pointer: moved.pointer }, 200);
  });

  admin.openapi(readRoute(ADMIN_API.history), async (c) => c.json(historyOf(await readPointer(storage(c))), 200));

  admin.openapi(readRoute(ADMIN_API.advisories), async (c) => c.json((await readAdvisories(storage(c))).record, 200));

  admin.openapi(jsonRoute(ADMIN_API.mergeAdvisories), async (c) => {
    const store = storage(c);
    let recorded: RecordedEntry | null = null;
    const merged = await mergeAdvisories(store, clock, c.req.valid("json").advisories, async (before, after) => {
      recorded = await recordAdvisoryChange(store, clock, before, after);
    });
    // An advisory change leaves the generation current: it is its own "previous".
    const entry = recorded as RecordedEntry | null;
    if (entry) announce(c, entry, entry.pointer.generation, options.webhooks);
    return c.json(merged, 200);
  });

  admin.openapi(jsonRoute(VERSIONS_ADMIN_API.reindex), async (c) =>
    c.json(await rebuildVersionIndex(storage(c), clock, c.req.valid("json").fresh === true), 200),
  );

  admin.openapi(jsonRoute(ADMIN_API.gc), async (c) => {
    const { keep, grace_seconds, apply } = c.req.valid("json");
    return c.json(await gc(c).run({ keep, graceSeconds: grace_seconds, apply: apply === true }), 200);
  });

  return admin;
}
