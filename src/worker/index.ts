// The skillshelf Worker: a thin Hono app over a published shelf generation.
import { Hono } from "hono";
import { adminRoutes } from "./admin/index.ts";
import { handleError, notFound } from "./http/errors.ts";
import { applySecurityHeaders, NO_STORE } from "./http/headers.ts";
import { readRoutes } from "./routes/index.ts";

export type AppEnv = { Bindings: CloudflareBindings };

const app = new Hono<AppEnv>();

// Answers without touching storage, so it measures the isolate, not R2 or KV.
// Never cached (it reports this isolate now) and carries the same security headers as every read.
app.get("/healthz", () => {
  const headers = applySecurityHeaders(new Headers({ "Content-Type": "application/json", "Cache-Control": NO_STORE }));
  return new Response(JSON.stringify({ ok: true }), { status: 200, headers });
});

// One error path: HTTPExceptions return the Response they carry, headers intact.
app.onError(handleError);
// Anything no router matched: the same JSON 404 (and security headers) the read routes send.
app.notFound((c) => handleError(notFound(), c));

// The admin API (publish, history, rollback, gc, advisories), behind the publish token.
app.route("/admin/v1", adminRoutes());

// The read surface: /skills, /.well-known/agent-skills, /.well-known/skills, /v1/shelf, /g/<id>/…, /c/<token>/…
app.route("/", readRoutes());

export default app;
