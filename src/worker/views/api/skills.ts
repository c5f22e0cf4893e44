// The skills group of /v1: the servable skills as a paged list, one skill's record and verdict,
// and what an agent reads next (body, outline, one section, resources), each the core's answer
// over the shelf service. Every computed answer is keyed and cached by respond.ts; a raw
// resource is served exactly as the static layout serves the file. Unknown skills are 404
// problems and blocked ones 410, before any ETag is compared.
import type { MiddlewareHandler } from "hono";
import { z } from "zod";
import { lifecycleOf } from "../../../core/changes/lifecycle.ts";
import { API_BASE, API_LIMITS } from "../../../core/api/contract.ts";
import { RESOURCE_TEXT_MAX_BYTES, SKILL_TEXT_MEDIA_TYPES, SKILLS_API } from "../../../core/api/skills.ts";
import { renderOutline, SectionNotFoundError } from "../../../core/disclosure/outline.ts";
import { storedFile } from "../../read/context.ts";
import { cachePolicy } from "../../read/policy.ts";
import { missingSectionKeys, renderableOutline, resourceOf, resourceText, sectionText } from "../../shelf/disclosure.ts";
import { NotOnShelfError } from "../../shelf/errors.ts";
import { recordTrustInputs, skillTrust } from "../../shelf/trust.ts";
import { problem } from "./problem.ts";
import { computed, computedJson } from "../../read/respond.ts";
import { bindRoute, bindWildcardRoute, paramsOf, queryOf, type ApiApp, type ApiContext } from "./routes.ts";
import { resolvedSkillAnswer } from "./versions.ts";
import { skillDetail, skillListArgs, skillPage, skillResources, type LinkBase } from "./skill-views.ts";

/** Where this request's URLs point. */
async function linkBase(c: ApiContext): Promise<LinkBase> {
  return { prefix: c.get("shelfAccess").urlPrefix, generation: (await c.get("shelf").generation()).id };
}

/** The section's 404: the core's message, and every key that exists, in outline order. */
function unknownSection(error: SectionNotFoundError) {
  return problem("not_found", error.message, { param: "key", keys: error.keys });
}

/**
 * Raw bytes keep the static layout's cache policy (immutable when pinned); the route binding's
 * "generated" policy runs inside this one, so this one has the last word.
 */
const rawResourceCachePolicy: MiddlewareHandler = async (c, next) => {
  if (c.req.query("as") === "text") return next();
  return (cachePolicy("stored") as MiddlewareHandler)(c, next);
};

/**
 * The skill, or, when the shelf renamed it (a lifecycle.yaml tombstone naming its replacement), a
 * 301 to the replacement's /v1 URL: a client holding the old name follows it to the new one.
 */
async function renamedOrSkill(c: ApiContext, name: string): Promise<Response | null> {
  try {
    await c.get("shelf").skill(name);
    return null;
  } catch (error) {
    if (!(error instanceof NotOnShelfError) || error.kind !== "skill") throw error;
    const to = lifecycleOf(await c.get("shelf").lifecycle(), name).replaced_by;
    if (to === null) throw error;
    const location = `${c.get("shelfAccess").urlPrefix}${API_BASE}/skills/${to}`;
    return new Response(JSON.stringify({ name, replaced_by: to, location }), {
      status: 301,
      headers: { Location: location, "Content-Type": "application/json", "Cache-Control": "no-cache" },
    });
  }
}

/** Binds the skills group: list, detail, body, outline, section, resources, one resource. */
export function skillRoutes(app: ApiApp): void {
  bindRoute(app, SKILLS_API.list, async (c) => {
    const args = skillListArgs(queryOf(c, SKILLS_API.list), API_LIMITS.defaultPageSize);
    return computedJson(
      c,
      "skills",
      { ...args },
      async () => skillPage(await c.get("shelf").skills(), args, await linkBase(c), await c.get("shelf").lifecycle()),
      { links: true, shelfWide: true },
    );
  });

  bindRoute(app, SKILLS_API.skill, async (c) => {
    const { name } = paramsOf(c, SKILLS_API.skill);
    const { version } = queryOf(c, SKILLS_API.skill);
    if (version !== undefined) return resolvedSkillAnswer(c, name, version, "version");
    const renamed = await renamedOrSkill(c, name);
    if (renamed) return renamed;
    // The digest of the signatures read is in the key: a re-signing of the same generation changes the answer.
    const signed = await c.get("shelf").skillSignature(name);
    return computedJson(
      c,
      "skill",
      { name, signatures: signed?.sha256 ?? null },
      async () => {
        const { skill, record } = await c.get("shelf").record(name);
        const trust = skillTrust((await c.get("shelf").generation()).advisories, skill, recordTrustInputs(record));
        const lifecycle = lifecycleOf(await c.get("shelf").lifecycle(), name);
        return skillDetail(await linkBase(c), skill, record, trust, signed?.signature ?? null, lifecycle);
      },
      { links: true },
    );
  });

  bindRoute(app, SKILLS_API.signature, async (c) => {
    const { name } = paramsOf(c, SKILLS_API.signature);
    await c.get("shelf").skill(name);
    const generation = (await c.get("shelf").generation()).id;
    const signature = (await c.get("shelf").skillSignature(name))?.signature ?? null;
    if (!signature) throw problem("not_found", `Skill '${name}' has no signature in generation ${generation}: it was published unsigned.`);
    return computedJson(c, "signature", { name, signature: signature.signature, key_id: signature.key_id }, async () => signature);
  });

  bindRoute(app, SKILLS_API.body, async (c) => {
    const { name } = paramsOf(c, SKILLS_API.body);
    await c.get("shelf").skill(name);
    return computed(c, { route: "body", args: { name }, contentType: SKILL_TEXT_MEDIA_TYPES.markdown, build: () => c.get("shelf").body(name) });
  });

  bindRoute(app, SKILLS_API.outline, async (c) => {
    const { name } = paramsOf(c, SKILLS_API.outline);
    const format = queryOf(c, SKILLS_API.outline).format ?? "json";
    await c.get("shelf").skill(name);
    return computed(c, {
      route: "outline",
      args: { name, format },
      contentType: format === "text" ? SKILL_TEXT_MEDIA_TYPES.text : "application/json",
      build: async () => {
        const { record } = await c.get("shelf").record(name);
        return format === "text" ? renderOutline(renderableOutline(record)) : JSON.stringify(record.outline);
      },
    });
  });

  bindRoute(app, SKILLS_API.section, async (c) => {
    const { name, key } = paramsOf(c, SKILLS_API.section);
    // The stored outline answers an unknown key before any ETag or body: never a 304 for a key that is not there.
    const { record } = await c.get("shelf").record(name);
    const keys = missingSectionKeys(record, key);
    if (keys) throw unknownSection(new SectionNotFoundError(name, key, keys));
    return computed(c, {
      route: "section",
      args: { name, key },
      contentType: SKILL_TEXT_MEDIA_TYPES.markdown,
      build: async () => {
        try {
          return await sectionText(c.get("shelf"), name, key);
        } catch (error) {
          if (error instanceof SectionNotFoundError) throw unknownSection(error);
          throw error;
        }
      },
    });
  });

  bindRoute(app, SKILLS_API.resources, async (c) => {
    const { name } = paramsOf(c, SKILLS_API.resources);
    await c.get("shelf").skill(name);
    return computedJson(c, "resources", { name }, async () => skillResources(await linkBase(c), (await c.get("shelf").record(name)).record), {
      links: true,
    });
  });

  app.use(`${API_BASE}/skills/:name/resources/:path{.+}`, rawResourceCachePolicy);
  bindWildcardRoute(app, SKILLS_API.resource, async (c) => {
    const { name, path } = paramsOf(c, SKILLS_API.resource);
    const as = queryOf(c, SKILLS_API.resource).as ?? "bytes";
    const resource = resourceOf(path);
    if (!resource) {
      await c.get("shelf").skill(name);
      throw problem("not_found", `'${path}' is not a resource of skill '${name}': resources are the files under references/, scripts/ and assets/.`, {
        param: "path",
      });
    }
    const file = await c.get("shelf").file(name, path);
    if (as === "bytes") return storedFile(c, file);
    if (file.size > RESOURCE_TEXT_MAX_BYTES) {
      throw problem(
        "unprocessable",
        `'${path}' is ${file.size} bytes; as=text encodes files up to ${RESOURCE_TEXT_MAX_BYTES} bytes. Fetch the bytes instead.`,
        {
          param: "as",
        },
      );
    }
    return computedJson(c, "resource-text", { name, path }, () => resourceText(file, resource.name));
  });
  documentRanges(app, `${API_BASE}${SKILLS_API.resource.path}`);
}

/** The static layout's refusal of a Range outside the file (not a problem document: the file route's own answer). */
const RangeRefusalSchema = z.object({ error: z.literal("range_not_satisfiable"), message: z.string() }).meta({ id: "RangeRefusal" });

/** Adds the raw resource's range answers (206 with the 200's media types, 416) to its OpenAPI operation. */
function documentRanges(app: ApiApp, path: string): void {
  for (const definition of app.openAPIRegistry.definitions) {
    if (definition.type !== "route" || definition.route.path !== path) continue;
    const responses = definition.route.responses;
    const ok = responses[200];
    responses[206] = { description: "Partial content: the Range asked for (bytes only)", content: ok && "content" in ok ? ok.content : {} };
    responses[416] = {
      description: "Range not satisfiable; Content-Range names the size",
      content: { "application/json": { schema: RangeRefusalSchema } },
    };
  }
}
