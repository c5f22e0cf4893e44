// The trust group of the read API: verdicts with reasons under the advisories in force
// (GET /v1/trust, GET /v1/trust/{name}) and the trust-gated selection of a context
// (POST /v1/select, `skillshelf select` at the edge). Each answer is computed once per
// generation, advisories and arguments, and then served from isolate memory.
import { API_BASE, API_LIMITS } from "../../../core/api/contract.ts";
import { TRUST_API, type SelectBody } from "../../../core/api/trust.ts";
import { compareCodePoints } from "../../../core/python-compat/py-text.ts";
import type { MiddlewareHandler } from "hono";
import { cachePolicy } from "../../read/policy.ts";
import { selectOnShelf } from "../../shelf/selection.ts";
import { shelfTrust, skillTrustOnShelf } from "../../shelf/trust.ts";
import { jsonBody } from "./body.ts";
import { computedJson } from "../../read/respond.ts";
import { bindRoute, bodyOf, paramsOf, type ApiApp } from "./routes.ts";

/**
 * A selection request with everything that cannot change the answer taken out, so equal
 * requests share one cached answer: an absent `enabled` is empty, and the grant is a set (order
 * and repeats change nothing). Names and enabled entries keep their order and repeats: the
 * answer lists and warns in that order.
 * @example normalizeSelectBody({ names: ["a"], grant: ["b", "a", "b"] }) // { names: ["a"], enabled: [], grant: ["a", "b"] }
 */
export function normalizeSelectBody(body: SelectBody): Required<Pick<SelectBody, "names" | "enabled">> & Pick<SelectBody, "grant"> {
  return {
    names: body.names,
    enabled: body.enabled ?? [],
    ...(body.grant !== undefined ? { grant: [...new Set(body.grant)].sort(compareCodePoints) } : {}),
  };
}

/**
 * Binds the trust group's routes.
 * @example trustRoutes(app)
 */
export function trustRoutes(app: ApiApp): void {
  bindRoute(app, TRUST_API.list, async (c) => computedJson(c, "trust", {}, () => shelfTrust(c.get("shelf")), { shelfWide: true }));

  bindRoute(app, TRUST_API.skill, async (c) => {
    const { name } = paramsOf(c, TRUST_API.skill);
    return computedJson(c, "trust-skill", { name }, () => skillTrustOnShelf(c.get("shelf"), name));
  });

  // The answer depends on the request body, which no shared cache keys on: never stored
  // downstream. Registered before the route so it wraps the route's own cache policy.
  app.use(`${API_BASE}${TRUST_API.select.path}`, cachePolicy("never") as MiddlewareHandler);
  bindRoute(
    app,
    TRUST_API.select,
    async (c) => {
      const body = normalizeSelectBody(bodyOf(c, TRUST_API.select));
      return computedJson(c, "select", body, () => selectOnShelf(c.get("shelf"), body));
    },
    [jsonBody(API_LIMITS.maxSelectBodyBytes)],
  );
}
