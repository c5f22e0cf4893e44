// The skill page and the file view over the request's shelf: the record, the body (rendered once
// per isolate, as part of the cached page), the verdict as /v1/trust/{name} gives it, and the
// files as the static layout serves them, typed for viewing in a browser.
import { lifecycleOf } from "../../../core/changes/lifecycle.ts";
import { marketplaceName } from "../../../core/api/claude-marketplace.ts";
import type { SkillRecord } from "../../../core/generation/manifest.ts";
import { servedTypeFor } from "../../http/content-type.ts";
import { capabilityUrlsEnabled } from "../../auth/read-access.ts";
import { storedFile, type ReadContext } from "../../read/context.ts";
import { computed } from "../../read/respond.ts";
import { immutableArchiveUrl, immutableSkillMdUrl } from "../../read/urls.ts";
import type { ShelfService } from "../../shelf/service.ts";
import { recordTrustInputs, skillTrust } from "../../shelf/trust.ts";
import { htmlDocument } from "./layout.tsx";
import { HTML_TYPE, pageLinks } from "./page-context.ts";
import { escapeHtml, renderSkillBody } from "./markdown.ts";
import type { InstallTargets } from "./install.ts";
import { SkillPage } from "./skill.tsx";

/** A file as the shelf service resolves it. */
type ServedFileOf = Awaited<ReturnType<ShelfService["file"]>>;

/** Inert text: how the file view shows anything textual (Markdown, JSON, YAML, scripts). */
const TEXT_TYPE = "text/plain; charset=utf-8";

/** URL path segments, each percent-encoded (file names may hold spaces, `#`, `?`, `%`). */
function encodedPath(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

/**
 * The most bytes of one skill page (an eighth of the generated-document cache, so the cache holds
 * what it serves). A page past it is rendered again without its body, which links to SKILL.md.
 */
export const PAGE_MAX_BYTES = 2 * 1024 * 1024;

/**
 * Stands for the request's origin in a cached skill page, so the page is rendered and kept once
 * whatever `Host` a request names; each answer puts its own origin in its place. Random per
 * isolate, so no skill's text can hold it; made at the first page, since a Worker may not make
 * random values at global scope.
 */
let originMarkValue: string | undefined;
function originMark(): string {
  originMarkValue ??= `\u{e000}origin-${crypto.randomUUID()}\u{e000}`;
  return originMarkValue;
}

/** Stands for the Claude Code marketplace's name, which comes from the request's host (as originMark). */
function marketplaceMark(): string {
  return `${originMark()}marketplace`;
}

/** Where clients install from: never the caller's capability token (a placeholder stands in). */
function installTargets(c: ReadContext, name: string, generation: string): InstallTargets {
  const origin = originMark();
  const capability = c.get("shelfAccess").urlPrefix !== "";
  const prefix = capability ? "/c/<read-token>" : "";
  return {
    shelfUrl: `${origin}${prefix}`,
    marketplace: marketplaceMark(),
    needsToken: c.get("shelfAccess").visibility === "private" && !capability,
    capabilityUrls: capabilityUrlsEnabled(c.env),
    pinnedSkillMd: `${origin}${immutableSkillMdUrl(prefix, generation, name)}`,
    pinnedArchive: `${origin}${immutableArchiveUrl(prefix, generation, name, "tar.gz")}`,
  };
}

/**
 * GET <ui>/skills/<name>: the skill's page, cached per generation, advisories and access prefix
 * (not per origin: the request's origin is put in as it is answered). At most PAGE_MAX_BYTES.
 * @throws NotOnShelfError, SkillBlockedError (asPage renders them)
 */
export async function skillPage(c: ReadContext, name: string): Promise<Response> {
  const shelf = c.get("shelf");
  await shelf.skill(name);
  const links = pageLinks(c);
  // The skills CLI's snippet on a private shelf read with a token depends on SHELF_CAPABILITY_URLS: part of the key there only.
  const access = c.get("shelfAccess");
  const cli = access.visibility === "private" && access.urlPrefix === "" ? { capabilityUrls: capabilityUrlsEnabled(c.env) } : {};
  const res = await computed(c, {
    route: "page-skill",
    args: { name, signOut: links.signOut, ...cli },
    links: true,
    contentType: HTML_TYPE,
    build: async () => {
      const [{ skill, record }, body, generation, lifecycle] = await Promise.all([shelf.record(name), shelf.body(name), shelf.generation(), shelf.lifecycle()]);
      const fileUrl = (path: string) => `${links.ui}/files/${name}/${encodedPath(path)}`;
      const rendered = renderSkillBody(body, { sections: sectionsOf(record), files: new Set(record.files.map((f) => f.path)), fileUrl });
      const view = {
        links,
        skill,
        record,
        trust: skillTrust(generation.advisories, skill, recordTrustInputs(record)),
        bodyHtml: rendered.html,
        anchored: rendered.anchored,
        bodyTruncated: rendered.truncated,
        install: installTargets(c, name, generation.id),
        fileUrl,
        lifecycle: lifecycleOf(lifecycle, name),
      };
      const page = encoder.encode(await htmlDocument(SkillPage(view)));
      if (page.byteLength <= PAGE_MAX_BYTES) return page;
      return htmlDocument(SkillPage({ ...view, bodyHtml: "", anchored: new Set(), bodyTruncated: true }));
    },
  });
  return withOrigin(res, new URL(c.req.url).origin);
}

const encoder = new TextEncoder();

/** A cached skill page with the request's origin in place of the origin mark. */
async function withOrigin(res: Response, origin: string): Promise<Response> {
  if (res.status !== 200) return res;
  const headers = new Headers(res.headers);
  if (res.body === null) {
    // HEAD: the length of the page with this origin is not known without building it.
    headers.delete("Content-Length");
    return new Response(null, { status: 200, headers });
  }
  // A URL's origin may hold & " ' (never < or >): escaped, as all text in a page is.
  const name = marketplaceName(new URL(origin).hostname);
  const page = encoder.encode((await res.text()).replaceAll(marketplaceMark(), escapeHtml(name)).replaceAll(originMark(), escapeHtml(origin)));
  headers.set("Content-Length", String(page.byteLength));
  return new Response(page, { status: 200, headers });
}

/** The stored outline's sections with their body offsets (older records lack them: no anchors then). */
function sectionsOf(record: SkillRecord): Array<{ key: string; level: number; start: number }> {
  return record.outline.sections.flatMap((s) => {
    const start = (s as { start?: unknown }).start;
    return typeof start === "number" ? [{ key: s.key, level: s.level, start }] : [];
  });
}

/**
 * GET <ui>/files/<name>/<path>: one file of a servable skill for a browser. Images and PDFs keep
 * their type, anything textual is shown as plain text, the rest (and `?download`) is an attachment.
 */
export async function fileView(c: ReadContext, file: ServedFileOf, download: boolean): Promise<Response> {
  const served = servedTypeFor(file.path, file.mediaType);
  const base = file.path
    .slice(file.path.lastIndexOf("/") + 1)
    .replace(/[^\x20-\x7e]/g, "_")
    .replace(/["\\]/g, "_");
  const type = served.disposition ? "application/octet-stream" : served.contentType;
  const shown = /^(image\/|application\/pdf)/.test(type) ? type : /^(text\/|application\/(json|yaml))/.test(type) ? TEXT_TYPE : null;
  const attach = download || shown === null;
  const res = await storedFile(c, file, attach ? "application/octet-stream" : shown!);
  if (attach) res.headers.set("Content-Disposition", `attachment; filename="${base}"`);
  return res;
}
