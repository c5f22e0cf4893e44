// Verifying a published shelf as a client would, with fetch alone (so the CLI's `skillshelf
// verify` and the workerd tests run the same code). Everything is fetched from one generation (the
// one /v1/shelf names, then its pinned /g/<id>/ URLs): the static layout's skill list, file list and
// bytes, and each skill's listing and signature from /v1. Every digest, tree hash and revision is
// recomputed from the downloaded bytes; every signature is checked against keys the caller trusts
// (never the server's own say-so), revoked keys verifying nothing. Every answer is checked against
// its shape before use: a shelf that answers something else has verified nothing.
import { z } from "zod";
import { mapLimit } from "../publish/map-limit.ts";
import { sha256Hex, treeHash } from "../skill/hash.ts";
import { decodeSkillMd, parseSkillMd, SkillMdError } from "../skill/skill-md.ts";
import { Keyring, refusalMessage, type PublicKeyEntry } from "./keys.ts";
import { contentRevision, generationPayload, originProblem, SigningError, snapshotPayload } from "./payloads.ts";

/** The shelf could not be read (unreachable, 401, not JSON): nothing was verified. */
export class ShelfFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ShelfFetchError";
  }
}

/** One thing that did not hold: the skill (null: the shelf or the generation), the file when one is at fault, and why. */
export interface VerifyFailure {
  skill: string | null;
  file: string | null;
  reason: string;
}

/** What verify found. */
export interface VerifyReport {
  url: string;
  origin: string;
  generation: string;
  verified: string[];
  failures: VerifyFailure[];
  /** Skills the signed generation lists that the shelf does not serve (blocked by an advisory in force). */
  withheld: string[];
  generationSignature: "verified" | "failed";
}

// The shapes of the answers verify reads (only the fields it uses; anything more is ignored).
const ShelfAnswerSchema = z.object({
  generation: z.union([z.string(), z.object({ id: z.string() })]),
  signature: z
    .object({ key_id: z.string(), signature: z.string(), payload: z.object({ skills: z.array(z.tuple([z.string(), z.string()])) }) })
    .nullable()
    .optional(),
});
const SkillNamesSchema = z.object({ skills: z.array(z.string()) });
const FileNamesSchema = z.object({ files: z.array(z.string()) });
const ListingSchema = z.object({
  files: z.array(z.object({ path: z.string(), size: z.number(), sha256: z.string() })),
  tree_hash: z.string(),
  signature: z.object({ key_id: z.string(), signature: z.string(), revision: z.string() }).nullable(),
});

/** A fetcher for one shelf: JSON and bytes, with the read token when given; failures name the URL. */
export function shelfFetcher(fetchImpl: typeof fetch, token: string | undefined) {
  const get = async (url: string): Promise<Response> => {
    let res: Response;
    try {
      res = await fetchImpl(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
    } catch (error) {
      throw new ShelfFetchError(`cannot reach ${url}: ${(error as Error).message}`);
    }
    if (res.status === 401) throw new ShelfFetchError(`${url} answered 401: the shelf is private; pass its read token with --token-env NAME`);
    return res;
  };
  return {
    get,
    json: async (url: string): Promise<unknown> => {
      const res = await get(url);
      if (!res.ok) throw new ShelfFetchError(`${url} answered ${res.status}`);
      try {
        return (await res.json()) as unknown;
      } catch {
        throw new ShelfFetchError(`${url} did not answer JSON`);
      }
    },
    /** The JSON at `url`, checked against `schema`: anything else is a ShelfFetchError naming the field. */
    checked: async <T>(url: string, schema: z.ZodType<T>): Promise<T> => {
      const res = await get(url);
      if (!res.ok) throw new ShelfFetchError(`${url} answered ${res.status}`);
      let json: unknown;
      try {
        json = await res.json();
      } catch {
        throw new ShelfFetchError(`${url} did not answer JSON`);
      }
      const parsed = schema.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new ShelfFetchError(`${url} is not what a shelf answers there: ${issue.path.join(".") || "(the answer)"}: ${issue.message}`);
      }
      return parsed.data;
    },
  };
}

const encodePath = (path: string) => path.split("/").map(encodeURIComponent).join("/");

/**
 * Verifies every skill of the shelf at `url` and its generation signature.
 * @example const report = await verifyShelf({ url, origin: url, keys, fetch })
 */
export async function verifyShelf(options: {
  url: string;
  origin: string;
  keys: readonly PublicKeyEntry[];
  token?: string;
  fetch?: typeof fetch;
  concurrency?: number;
}): Promise<VerifyReport> {
  if (originProblem(options.origin)) throw new SigningError(`origin: ${originProblem(options.origin)}`);
  const base = options.url.replace(/\/+$/, "");
  const http = shelfFetcher(options.fetch ?? fetch, options.token);
  const ring = new Keyring(options.keys);
  const shelf = await http.checked(`${base}/v1/shelf`, ShelfAnswerSchema);
  const generation = typeof shelf.generation === "string" ? shelf.generation : shelf.generation?.id;
  if (typeof generation !== "string" || !/^[0-9a-f]{64}$/.test(generation)) throw new ShelfFetchError(`${base}/v1/shelf does not name a generation`);
  const pinned = `${base}/g/${generation}`;
  const report: VerifyReport = { url: base, origin: options.origin, generation, verified: [], failures: [], withheld: [], generationSignature: "failed" };
  const fail = (skill: string | null, file: string | null, reason: string) => report.failures.push({ skill, file, reason });

  const listedNames = (await http.checked(`${pinned}/skills/index.json`, SkillNamesSchema)).skills;
  // A skill listed twice is a failure once, and verified (or not) once.
  const names = [...new Set(listedNames)];
  for (const name of names) {
    if (listedNames.indexOf(name) !== listedNames.lastIndexOf(name)) fail(name, null, "listed twice in the shelf's skills/index.json");
  }
  const revisions = new Map<string, string>();
  await mapLimit(names, options.concurrency ?? 8, async (name) => {
    const listing = await http.checked(`${pinned}/v1/skills/${encodeURIComponent(name)}`, ListingSchema);
    const listedPaths = (await http.checked(`${pinned}/skills/${encodeURIComponent(name)}/index.json`, FileNamesSchema)).files;
    const paths = [...new Set(listedPaths)];
    const listed = new Map(listing.files.map((f) => [f.path, f]));
    const downloaded: { path: string; size: number; sha256: string }[] = [];
    let skillMd: Uint8Array | null = null;
    let ok = paths.length === listedPaths.length;
    if (!ok) fail(name, null, "a file is listed twice in the skill's index.json");
    if (listing.files.length !== new Set(listing.files.map((f) => f.path)).size) {
      fail(name, null, "a file is listed twice in the skill's file listing");
      ok = false;
    }
    for (const path of paths) {
      const res = await http.get(`${pinned}/skills/${encodeURIComponent(name)}/${encodePath(path)}`);
      if (!res.ok) {
        fail(name, path, `the static layout answered ${res.status}`);
        ok = false;
        continue;
      }
      const bytes = new Uint8Array(await res.arrayBuffer());
      const file = { path, size: bytes.length, sha256: await sha256Hex(bytes) };
      downloaded.push(file);
      if (path === "SKILL.md") skillMd = bytes;
      const claimed = listed.get(path);
      if (!claimed) {
        fail(name, path, "served by the static layout but not in the skill's file listing");
        ok = false;
      } else if (claimed.sha256 !== file.sha256 || claimed.size !== file.size) {
        fail(
          name,
          path,
          `the downloaded bytes (${file.size} bytes, sha256 ${file.sha256}) are not the listed ones (${claimed.size} bytes, sha256 ${claimed.sha256})`,
        );
        ok = false;
      }
    }
    for (const path of listed.keys()) {
      if (!paths.includes(path)) {
        fail(name, path, "listed but not served by the static layout");
        ok = false;
      }
    }
    if ((await treeHash(downloaded)) !== listing.tree_hash) {
      fail(name, null, "the tree hash of the downloaded files is not the listed one");
      ok = false;
    }
    const revision = await contentRevision(downloaded);
    revisions.set(name, revision);
    const signature = listing.signature;
    if (!signature) {
      fail(name, null, "no signature: the shelf published this skill unsigned");
      return;
    }
    let version: unknown = null;
    try {
      version = skillMd ? (parseSkillMd(decodeSkillMd(skillMd)).frontmatter.version ?? null) : null;
    } catch (error) {
      if (!(error instanceof SkillMdError)) throw error;
      fail(name, "SKILL.md", error.message);
      return;
    }
    if (signature.revision !== revision) fail(name, null, "the signature covers other content (its revision is not that of the downloaded files)");
    let payload: Uint8Array;
    try {
      payload = snapshotPayload({ origin: options.origin, skillId: name, version, revision });
    } catch (error) {
      if (!(error instanceof SigningError)) throw error;
      fail(name, "SKILL.md", error.message);
      return;
    }
    const refusal = await ring.check(signature.key_id, signature.signature, payload);
    if (refusal) {
      const why =
        refusal === "bad_signature"
          ? `${refusalMessage(refusal, signature.key_id)} for origin ${options.origin} over the downloaded files`
          : refusalMessage(refusal, signature.key_id);
      fail(name, null, why);
      return;
    }
    if (ok && signature.revision === revision) report.verified.push(name);
  });

  // The generation signature, rebuilt from the static layout's skills and their recomputed
  // revisions; a skill the signed generation lists but the shelf withholds (blocked) keeps its
  // signed revision, since it cannot be downloaded.
  const signed = shelf.signature;
  if (!signed) {
    fail(null, null, "no generation signature: the shelf published this generation unsigned");
  } else {
    for (const [name, revision] of signed.payload.skills) {
      if (!revisions.has(name)) {
        // Not downloaded, so not verified: a shelf that withholds skills has not shown what it signed.
        report.withheld.push(name);
        fail(name, null, "listed in the signed generation but not served (blocked by an advisory in force, or withheld): not verified");
        revisions.set(name, revision);
      }
    }
    const payload = generationPayload({ origin: options.origin, generation, skills: [...revisions] });
    const refusal = await ring.check(signed.key_id, signed.signature, payload);
    if (refusal)
      fail(
        null,
        null,
        `generation signature: ${refusalMessage(refusal, signed.key_id)}${refusal === "bad_signature" ? ` for origin ${options.origin} over the served skills` : ""}`,
      );
    else report.generationSignature = "verified";
  }
  report.verified.sort();
  report.withheld.sort();
  return report;
}
