// Checks a /v1 answer against the served OpenAPI document: the operation must be documented, the
// status and media type listed, and a JSON body valid against the documented schema. Uses
// @cfworker/json-schema, which interprets schemas (workerd forbids the code generation ajv does).
import { env } from "cloudflare:workers";
import { Validator, type Schema } from "@cfworker/json-schema";
import { expect } from "vitest";
import app from "../../../src/worker/index.ts";

interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components?: Record<string, unknown>;
}

let documentPromise: Promise<Document> | undefined;

/** The served document (fetched once per test file). */
export function openApiDocument(): Promise<Document> {
  documentPromise ??= Promise.resolve(app.request("https://shelf.test/v1/openapi.json", {}, env)).then((r) => r.json() as Promise<Document>);
  return documentPromise;
}

/** The documented path template a concrete path matches ("/v1/skills/{name}"), prefixes /g/<id> and /c/<token> removed. */
function templateFor(doc: Document, path: string): string | undefined {
  const bare = path.replace(/^\/c\/[^/]+/, "").replace(/^\/g\/[0-9a-f]{64}/, "");
  for (const template of Object.keys(doc.paths)) {
    const pattern = new RegExp(
      `^${template
        .replace(/[.*+?^$()|[\]\\]/g, "\\$&")
        .replace(/\\?\{path\\?\}$|\{path\}$/, ".+")
        .replace(/\{[^}]+\}/g, "[^/]+")}$`,
    );
    if (pattern.test(bare)) return template;
  }
  return undefined;
}

/**
 * Asserts that `res` (answering `method path`) is what the OpenAPI document says: a documented
 * operation, a documented status and media type, and a JSON body valid against its schema.
 * Reads a clone, so the caller can still read the body.
 * @example await expectDocumented("get", "/v1/catalog?format=json", res)
 */
export async function expectDocumented(method: string, pathWithQuery: string, res: Response): Promise<void> {
  const doc = await openApiDocument();
  const path = new URL(pathWithQuery, "https://shelf.test").pathname;
  const template = templateFor(doc, path);
  expect(template, `${path} is not in the OpenAPI document`).toBeDefined();
  // A HEAD is answered by the GET operation (the document lists GETs only).
  const operation = doc.paths[template!]![method.toLowerCase() === "head" ? "get" : method.toLowerCase()];
  expect(operation, `${method} ${template} is not in the OpenAPI document`).toBeDefined();
  const response = operation!.responses[String(res.status)];
  expect(response, `${method} ${template} does not document status ${res.status}`).toBeDefined();
  if (res.status === 304 || method.toUpperCase() === "HEAD") return;
  const mediaType = (res.headers.get("Content-Type") ?? "").split(";")[0]!.trim();
  const content = response!.content?.[mediaType];
  expect(content, `${method} ${template} ${res.status} does not document ${mediaType}`).toBeDefined();
  if (!mediaType.endsWith("json") || !content!.schema) return;
  const body = await res.clone().json();
  const validator = new Validator({ ...(content!.schema as object), components: doc.components } as Schema, "2020-12", false);
  const result = validator.validate(body);
  expect(result.errors.slice(0, 5), `${method} ${path} ${res.status} body breaks the documented schema`).toEqual([]);
}
