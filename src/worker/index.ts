// The skillshelf Worker: a thin Hono app over a published shelf generation.
import { Hono } from "hono";

export type AppEnv = { Bindings: CloudflareBindings };

const app = new Hono<AppEnv>();

// Answers without touching storage, so it measures the isolate, not R2 or KV.
app.get("/healthz", (c) => c.json({ ok: true }));

export default app;
