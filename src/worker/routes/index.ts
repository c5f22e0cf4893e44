// The shelf's read routes, ready to mount: the current and pinned generations at "/", and the
// same surface under "/c/:token" for capability URLs (answering 404 unless switched on).
import { Hono } from "hono";
import type { StorageBindings } from "../storage/index.ts";
import { edgeVerdict } from "./edge-trust.ts";
import { servingRoutes, type ServingBindings, type ServingEnv } from "./serving.ts";
import { openStorageView } from "./storage-view.ts";

/** The bindings the read routes use. */
export type ReadBindings = StorageBindings & ServingBindings;

/**
 * The read router over storage. Mount with `app.route("/", readRoutes())`.
 * @example app.route("/", readRoutes())
 */
export function readRoutes<B extends ReadBindings>(): Hono<ServingEnv<B>> {
  const serving = servingRoutes<B>({ openView: openStorageView, trust: edgeVerdict });
  const app = new Hono<ServingEnv<B>>();
  app.route("/", serving);
  app.route("/c/:token", serving);
  return app;
}
