// Binding the read API's contract (src/core/api) to Hono: each route of the contract becomes an
// @hono/zod-openapi route, so its query, path and body are validated by the contract's schemas
// (a failure is a problem naming the parameter) and the OpenAPI document describes exactly what
// is bound. Views (skills.ts, catalog.ts, trust.ts, search.ts) only write handlers.
import { createRoute, OpenAPIHono, type Hook } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { z } from "zod";
import { API_BASE, API_ERRORS, PROBLEM_MEDIA_TYPE, ProblemSchema, type ApiRoute } from "../../../core/api/contract.ts";
import type { ReadEnv } from "../../read/context.ts";
import { cachePolicy } from "../../read/policy.ts";
import { invalidParameter, problem } from "./problem.ts";

/** The read API's Hono app. */
export type ApiApp = OpenAPIHono<ReadEnv>;
/** A read API handler's context. */
export type ApiContext = Context<ReadEnv>;

/** A request that fails its route's schema: a problem naming the first parameter at fault. */
export const refuseInvalidRequest: Hook<unknown, ReadEnv, string, unknown> = (result) => {
  if (result.success) return;
  const issue = result.error.issues[0];
  if (result.target === "json") {
    const where = issue?.path.length ? issue.path.join(".") : "body";
    throw problem("unprocessable", `${where}: ${issue?.message ?? "does not match the schema"}`, { param: where });
  }
  const param = String(issue?.path[0] ?? result.target);
  throw invalidParameter(param, issue?.message ?? "invalid");
};

/** A new, empty read API app whose validation failures are problems. */
export function apiApp(): ApiApp {
  return new OpenAPIHono<ReadEnv>({ defaultHook: refuseInvalidRequest });
}

/** Read access's refusal, the same on every read route: `{error, message}` with WWW-Authenticate. */
const ReadRefusalSchema = z.object({ error: z.string(), message: z.string() }).meta({ id: "ReadRefusal" });

/** The error answers of a route, for the OpenAPI document. */
function errorResponses(route: ApiRoute) {
  const codes = new Set([...route.errors, "storage_unavailable", "internal"] as const);
  const byStatus = new Map<number, string[]>();
  for (const code of codes) byStatus.set(API_ERRORS[code], [...(byStatus.get(API_ERRORS[code]) ?? []), code]);
  return {
    ...Object.fromEntries(
      [...byStatus].map(([status, list]) => [
        status,
        { description: `Problem: ${list.join(", ")}`, content: { [PROBLEM_MEDIA_TYPE]: { schema: ProblemSchema } } },
      ]),
    ),
    401: { description: "Private shelf: a valid read token is required", content: { "application/json": { schema: ReadRefusalSchema } } },
  };
}

/** The route's success answer, for the OpenAPI document (a text or byte answer has a string schema). */
function successResponse(route: ApiRoute) {
  const content = Object.fromEntries(route.responses.map((r) => [r.mediaType, { schema: (r.schema ?? { type: "string" }) as z.ZodType }]));
  return { 200: { description: route.summary, content }, 304: { description: "Not modified (If-None-Match matched the ETag)" } };
}

/** The @hono/zod-openapi route for a contract route; `{path}` parameters are `{path}` here and bound by {@link bindRoute}. */
export function openApiRoute(route: ApiRoute, middleware: MiddlewareHandler[] = []) {
  return createRoute({
    method: route.method,
    path: `${API_BASE}${route.path}`,
    summary: route.summary,
    middleware: [cachePolicy("generated") as MiddlewareHandler, ...middleware],
    request: {
      ...(route.params ? { params: route.params } : {}),
      ...(route.query ? { query: route.query } : {}),
      ...(route.body ? { body: { required: true, content: { "application/json": { schema: route.body.json } } } } : {}),
    },
    responses: { ...successResponse(route), ...errorResponses(route) },
  });
}

/**
 * Binds one contract route to a handler. The handler reads its validated arguments with
 * {@link queryOf} / {@link paramsOf} / {@link bodyOf}.
 * @example bindRoute(app, SKILLS_API.list, async (c) => computedJson(c, "skills", …))
 */
export function bindRoute(app: ApiApp, route: ApiRoute, handler: (c: ApiContext) => Promise<Response>, middleware: MiddlewareHandler[] = []): void {
  app.openapi(openApiRoute(route, middleware), handler as never);
}

/**
 * A route whose last parameter is a path with slashes (`/resources/{path}`): described in the
 * document like the others, bound with Hono's `:path{.+}` (the OpenAPI router cannot match
 * slashes), its parameters validated here with the same schema.
 */
export function bindWildcardRoute(app: ApiApp, route: ApiRoute, handler: (c: ApiContext) => Promise<Response>): void {
  app.openAPIRegistry.registerPath(openApiRoute(route));
  const honoPath = `${API_BASE}${route.path}`.replace(/\{(\w+)\}$/, ":$1{.+}").replaceAll(/\{(\w+)\}/g, ":$1");
  app.on(route.method.toUpperCase(), honoPath, cachePolicy("generated") as MiddlewareHandler, async (c) => {
    for (const [target, schema, value] of [
      ["param", route.params, c.req.param()],
      ["query", route.query, c.req.query()],
    ] as const) {
      if (!schema) continue;
      const parsed = schema.safeParse(value);
      if (!parsed.success) refuseInvalidRequest({ success: false, error: parsed.error, target } as never, c as never);
      (c.req as unknown as { addValidatedData(t: string, d: unknown): void }).addValidatedData(target, parsed.data);
    }
    return handler(c);
  });
}

/** The validated query of a route. */
export function queryOf<R extends ApiRoute & { query: z.ZodObject }>(c: ApiContext, _route: R): z.infer<R["query"]> {
  return c.req.valid("query" as never) as z.infer<R["query"]>;
}

/** The validated path parameters of a route. */
export function paramsOf<R extends ApiRoute & { params: z.ZodObject }>(c: ApiContext, _route: R): z.infer<R["params"]> {
  return c.req.valid("param" as never) as z.infer<R["params"]>;
}

/** The validated JSON body of a route. */
export function bodyOf<R extends ApiRoute & { body: { json: z.ZodType } }>(c: ApiContext, _route: R): z.infer<R["body"]["json"]> {
  return c.req.valid("json" as never) as z.infer<R["body"]["json"]>;
}
