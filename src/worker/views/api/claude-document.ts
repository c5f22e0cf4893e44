// The Claude Code marketplace routes (src/worker/views/claude binds them) in this API's OpenAPI
// document, from the schema the marketplace is typed by (src/core/api/claude-marketplace.ts).
import { z } from "zod";
import { MARKETPLACE_PATH, MarketplaceSchema, PLUGIN_ARCHIVE_BASE } from "../../../core/api/claude-marketplace.ts";
import type { ApiApp } from "./routes.ts";

const PROBLEM = { "application/json": { schema: z.object({ error: z.string(), message: z.string() }) } };

/**
 * Describes the marketplace and its plugin archives in the document, tagged `claude-code`.
 * @example describeClaudeRoutes(app)
 */
export function describeClaudeRoutes(app: ApiApp): void {
  const refusals = {
    401: { description: "Private shelf: a valid read token is required", content: PROBLEM },
    503: { description: "Storage unavailable; retry after Retry-After", content: PROBLEM },
  };
  app.openAPIRegistry.registerPath({
    method: "get",
    path: MARKETPLACE_PATH,
    summary: "The shelf as a Claude Code plugin marketplace (`claude plugin marketplace add <url>`): one archive plugin per servable skill",
    tags: ["claude-code"],
    responses: {
      200: { description: "The marketplace", content: { "application/json": { schema: MarketplaceSchema } } },
      304: { description: "Not modified (If-None-Match matched the ETag)" },
      404: { description: "Nothing published, or an unknown capability URL", content: PROBLEM },
      ...refusals,
    },
  });
  app.openAPIRegistry.registerPath({
    method: "get",
    path: `${PLUGIN_ARCHIVE_BASE}/{name}/{file}`,
    summary: "A skill's plugin zip (.claude-plugin/plugin.json + skills/<name>/…), named <sha256>.zip as the marketplace lists it",
    tags: ["claude-code"],
    request: { params: z.object({ name: z.string(), file: z.string() }) },
    responses: {
      200: { description: "The plugin zip", content: { "application/zip": { schema: z.string() } } },
      304: { description: "Not modified (If-None-Match matched the ETag)" },
      404: { description: "No such skill, or no plugin zip with that digest in this generation", content: PROBLEM },
      410: { description: "The skill is blocked by an advisory in force", content: PROBLEM },
      ...refusals,
    },
  });
}
