// The read API (/v1): the core's disclosure, trust, selection and search computed at the edge,
// each view a thin sibling over the request's shelf service. Mounted inside the read surface
// (src/worker/read), so it has the same read access, CORS, pinned (/g/<generation>/v1/…) and
// capability (/c/<token>/v1/…) forms as every read route. Every refusal is a problem document.
import { catalogRoutes } from "./catalog.ts";
import { changeRoutes } from "./changes.ts";
import { describeClaudeRoutes } from "./claude-document.ts";
import { describeClawhubRoutes } from "./clawhub-document.ts";
import { openApiDocumentRoute, type AdminOpenApiDocument } from "./openapi.ts";
import { handleApiError } from "./problem.ts";
import { apiApp, type ApiApp } from "./routes.ts";
import { searchRoutes } from "./search.ts";
import { shelfRoutes } from "./shelf.ts";
import { skillRoutes } from "./skills.ts";
import { trustRoutes } from "./trust.ts";
import { versionRoutes } from "./versions.ts";

/** Every route group of the read API, in the order the OpenAPI document lists them. */
const GROUPS: ReadonlyArray<(app: ApiApp) => void> = [shelfRoutes, skillRoutes, versionRoutes, catalogRoutes, trustRoutes, searchRoutes, changeRoutes];

/**
 * The read API's routes (paths include /v1), with the contract's routes bound and validated.
 * @example surface.route("/", apiRoutes(adminDocument))
 */
export function apiRoutes(adminDocument?: AdminOpenApiDocument): ApiApp {
  const app = apiApp();
  app.onError(handleApiError);
  for (const group of GROUPS) group(app);
  describeClawhubRoutes(app);
  describeClaudeRoutes(app);
  openApiDocumentRoute(app, adminDocument);
  return app;
}
