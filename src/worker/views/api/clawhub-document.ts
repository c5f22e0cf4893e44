// The ClawHub routes (src/worker/views/clawhub binds them) in this API's OpenAPI document, from
// the same schemas the answers are typed by (src/core/api/clawhub.ts): registered, never bound here.
import { z } from "zod";
import { CLAWHUB_ROUTES } from "../../../core/api/clawhub.ts";
import type { ApiApp } from "./routes.ts";

/**
 * The refusals every ClawHub route can answer: the view's are plain text (the CLI prints them as
 * they are); read access's (a 401, a capability URL's 404, a token store's 503) are its JSON.
 */
const TEXT = { "text/plain": { schema: z.string() } };
const TEXT_OR_JSON = { ...TEXT, "application/json": { schema: z.object({ error: z.string(), message: z.string() }) } };
const REFUSALS = {
  400: { description: "A missing or malformed parameter", content: TEXT },
  401: { description: "Private shelf: a valid read token is required (whoami: the shelf is public and needs no login)", content: TEXT_OR_JSON },
  404: { description: "Skill not found (absent, or blocked by an advisory in force), no such version, or an unknown capability URL", content: TEXT_OR_JSON },
  503: { description: "Storage unavailable; retry after Retry-After", content: TEXT_OR_JSON },
};

/**
 * Describes every ClawHub route in the document, tagged `clawhub`.
 * @example describeClawhubRoutes(app)
 */
export function describeClawhubRoutes(app: ApiApp): void {
  for (const route of CLAWHUB_ROUTES) {
    const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    const params = names.length ? z.object(Object.fromEntries(names.map((n) => [n, z.string()]))) : undefined;
    app.openAPIRegistry.registerPath({
      method: "get",
      path: route.path,
      summary: route.summary,
      tags: ["clawhub"],
      request: { ...(params ? { params } : {}), ...(route.query ? { query: route.query } : {}) },
      responses: {
        200: { description: route.summary, content: Object.fromEntries(route.mediaTypes.map((m) => [m, { schema: route.schema ?? z.string() }])) },
        304: { description: "Not modified (If-None-Match matched the ETag)" },
        ...REFUSALS,
      },
    });
  }
}
