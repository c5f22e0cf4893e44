// GET /v1/openapi.json: the OpenAPI 3.1 document of the read API and the admin API, generated
// from the zod schemas that validate their requests (never written by hand). It depends on the
// code only, not on the shelf, so the app's is prebuilt (openapi-prebuilt.ts).
import { API_BASE } from "../../../core/api/contract.ts";
import { ADMIN_API_BASE } from "../../../core/publish/contract.ts";
import { toHex } from "../../../core/skill/hash.ts";
import { etagFor } from "../../http/conditional.ts";
import { serveJson } from "../../http/file-response.ts";
import { cachePolicy } from "../../read/policy.ts";
import { PREBUILT_OPENAPI } from "./openapi-prebuilt.ts";
import type { ApiApp } from "./routes.ts";

/** The document's `info.version`: bump with any change a client could notice. */
export const API_VERSION = "1.0.0";

type Document = ReturnType<ApiApp["getOpenAPI31Document"]>;

/** The admin API's own document (its paths relative to ADMIN_API_BASE), handed in by whoever built that router. */
export type AdminOpenApiDocument = () => Pick<Document, "paths" | "components">;

/** The combined document: /v1 paths as bound, admin paths (when given) under ADMIN_API_BASE with its bearer scheme. */
export function openApiDocument(api: ApiApp, adminDocument?: AdminOpenApiDocument): Document {
  const info = {
    title: "skillshelf",
    version: API_VERSION,
    description:
      "A shelf of Agent Skills: the read API (/v1, also under /g/{generation} and /c/{token}), the ClawHub v1 read API (/api/v1, tag clawhub) and the admin API (/admin/v1, publish token).",
  };
  const read = api.getOpenAPI31Document({ openapi: "3.1.0", info });
  const admin = adminDocument?.() ?? { paths: {}, components: {} };
  const paths = { ...read.paths };
  for (const [path, item] of Object.entries(admin.paths ?? {})) {
    const tagged = Object.fromEntries(
      Object.entries(item as Record<string, object>).map(([method, op]) => [method, { ...op, tags: ["admin"], security: [{ publishToken: [] }] }]),
    );
    paths[`${ADMIN_API_BASE}${path}`] = tagged;
  }
  return {
    ...read,
    paths,
    components: {
      ...read.components,
      schemas: { ...admin.components?.schemas, ...read.components?.schemas },
      securitySchemes: {
        publishToken: { type: "http", scheme: "bearer", description: "The shelf's publish token (admin API)." },
        readToken: { type: "http", scheme: "bearer", description: "A read token, on a private shelf (or a capability URL, /c/{token}/…)." },
      },
    },
  };
}

/** The document's bytes as /v1/openapi.json serves them. */
export function openApiText(api: ApiApp, adminDocument?: AdminOpenApiDocument): string {
  return JSON.stringify(openApiDocument(api, adminDocument));
}

/** The ETag of those bytes: a prefix of their SHA-256. */
export async function openApiEtag(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return etagFor(`openapi-${toHex(digest.slice(0, 16))}`);
}

/**
 * Binds GET /v1/openapi.json (not itself in the document). The app's whole document (read and admin
 * API) is prebuilt (openapi-prebuilt.ts, which a test rewrites from the code and fails on drift),
 * since building it from the zod schemas was a cold request's 100-200 ms; without the admin API's
 * document it is built on first request.
 */
export function openApiDocumentRoute(api: ApiApp, adminDocument?: AdminOpenApiDocument): void {
  let text: string | undefined = adminDocument ? PREBUILT_OPENAPI.text : undefined;
  let etag: string | undefined = adminDocument ? PREBUILT_OPENAPI.etag : undefined;
  api.get(`${API_BASE}/openapi.json`, cachePolicy("generated"), async (c) => {
    if (text === undefined) {
      text = openApiText(api, adminDocument);
      etag = await openApiEtag(text);
    }
    return serveJson(c.req.raw, text, etag!);
  });
}
