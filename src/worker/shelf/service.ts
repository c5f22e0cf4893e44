// The shelf service: what a request may read from one shelf, whatever protocol asks. It resolves
// the generation (current, or pinned by id), applies the edge verdict (blocked skills are never
// served, requires_review is re-decided against the advisories in force) and raises typed errors
// (NotOnShelfError, SkillBlockedError, storage's StorageUnavailableError). Every view (the static
// layout, well-known discovery, the read API, /mcp and the pages) is a thin sibling over it and
// the modules beside it that derive from it (disclosure, trust, selection, search); the live
// records besides the pointer and advisories (signatures, the version index) are read beside it.
import type { SkillEntry, SkillRecord } from "../../core/generation/manifest.ts";
import { isSha256Hex } from "../../core/skill/hash.ts";
import { decodeSkillMd, parseSkillMd } from "../../core/skill/skill-md.ts";
import type { AdvisoryEntry } from "../../core/trust/records.ts";
import type { FeedEntry } from "../../core/changes/atom.ts";
import { LifecycleSchema, type Lifecycle } from "../../core/changes/lifecycle.ts";
import { recentChanges, shelfHistory } from "./changes.ts";
import { MissingObjectError, StorageUnavailableError } from "../storage/errors.ts";
import { openGeneration, openGenerationById, type BlobHead, type Clock, type OpenedBlob, type Generation, type StorageBindings } from "../storage/index.ts";
import { r2Key } from "../storage/keys.ts";
import { MemoryCache } from "../memory-cache.ts";
import { NotOnShelfError, SkillBlockedError } from "./errors.ts";
import { isPlausibleFilePath, isPlausibleSkillName } from "./names.ts";
import { edgeVerdict, servedAs, servedOf, type BlockingAdvisory } from "./verdict.ts";
import {
  generationSigning,
  type GenerationSigning,
  shelfSignature,
  type SigningBindings,
  skillSignatures,
  skillSigning,
  type SkillSigning,
} from "./signing.ts";
import type { SkillSignature } from "../../core/signing/signatures.ts";
import type { VersionSelector } from "../../core/versions/resolve.ts";
import { resolveVersion, skillVersionsNow, type JudgedVersion, type ResolvedVersion, type VersionsView } from "./versions.ts";

/**
 * A skill entry as served now: `trust.requires_review` is the edge verdict (the build's, or an
 * advisory in force now that matches without blocking). Blocked skills never become one.
 */
export type ServedSkill = SkillEntry;

/** A served skill with its full record (files, frontmatter, outline). */
export interface SkillWithRecord {
  skill: ServedSkill;
  record: SkillRecord;
}

/** A byte range of a stored file. */
export interface ByteRange {
  offset: number;
  length: number;
}

/**
 * One stored file a view may serve: a skill file, or an archive of a whole skill. Its digest
 * and size come from the manifest, so a view can answer conditional and HEAD requests without
 * opening the bytes.
 */
export interface ShelfFile {
  /** The skill-relative path, or `<name>.tar.gz` / `<name>.zip` for an archive. */
  path: string;
  sha256: string;
  size: number;
  /** The media type the build recorded (archives have none). */
  mediaType?: string;
  /**
   * Streams the bytes (or a range), never buffered, with R2's size and SHA-256 checksum of the
   * whole object. Throws StorageUnavailableError when they are not stored.
   */
  open(range?: ByteRange): Promise<OpenedBlob>;
  /**
   * The whole bytes, checked against `sha256` and `size` (small ones kept in the isolate once
   * checked: storage/checked-blobs.ts). Throws StorageUnavailableError when they are not stored
   * or not those bytes. Shared with other requests: never change them.
   */
  readChecked(): Promise<Uint8Array>;
  /** What R2 says of the bytes without reading them (size, and the SHA-256 it checked at upload); null when they are not stored. */
  head(): Promise<BlobHead | null>;
}

/** The archive formats every skill is published in. */
export type ArchiveFormat = "tar.gz" | "zip";

/** The state of the shelf as /v1/shelf shows it (the view adds who is asking). */
export interface ShelfStatus {
  generation: string;
  /** When this generation became current; null when the request pinned it. */
  published_at: string | null;
  counts: {
    skills: number;
    served_skills: number;
    blocked_skills: number;
    requires_review: number;
    files: number;
    total_bytes: number;
  };
  requires_review: string[];
  blocked: Array<{ name: string; advisory: BlockingAdvisory }>;
  advisories: { seq: number; in_force: readonly AdvisoryEntry[] };
}

/**
 * SKILL.md bodies by the SHA-256 of their SKILL.md: content-addressed, so valid across
 * generations; bounded, so a 10,000-skill shelf cannot fill the isolate.
 */
const BODY_CACHE_BYTES = 8 * 1024 * 1024;
const bodies = new MemoryCache<string>(BODY_CACHE_BYTES);

/** Forgets every cached body (tests that count storage reads start cold). */
export function resetBodyCache(): void {
  bodies.clear();
}

/** Options for {@link ShelfService}. */
export interface ShelfServiceOptions {
  /** A pinned generation id (from /g/<id>/…); the current generation when absent. */
  generation?: string;
  clock?: Clock;
}

/**
 * One request's view of the shelf. Cheap to construct: the generation is opened on first use
 * and then kept for the whole request, so every answer comes from the same manifest.
 * @example const shelf = new ShelfService(c.env, { generation: c.req.param("generation") }); await shelf.skill("code-review")
 */
export class ShelfService {
  readonly #env: StorageBindings & SigningBindings;
  readonly #pinned: string | undefined;
  readonly #clock: Clock | undefined;
  #generation: Promise<Generation> | undefined;
  #servedFrom: string | undefined;
  #currentSeq: number | null = null;
  readonly #skills = new Map<string, Promise<ServedSkill>>();
  #lifecycle: Promise<Lifecycle | null> | undefined;

  constructor(env: StorageBindings & SigningBindings, options: ShelfServiceOptions = {}) {
    this.#env = env;
    this.#pinned = options.generation;
    this.#clock = options.clock;
  }

  /**
   * Where this request's generation's signatures are read from, with the digest ETags name (one
   * small read); null when it was published unsigned or the shelf does not sign.
   */
  async signing(): Promise<GenerationSigning | null> {
    return generationSigning(this.#env, (await this.generation()).id);
  }

  /** The served signatures of `names` in this request's generation: the signature shards they span. */
  async skillSignatures(signing: GenerationSigning | null, names: readonly string[]): Promise<Map<string, SkillSignature>> {
    const generation = await this.generation();
    return skillSignatures(this.#env, generation.id, generation.manifest.shard_count, signing, names);
  }

  /** The generation signature and the payload it signs, as /v1/shelf shows them (no signature shard read). */
  async generationSignature(signing: GenerationSigning | null): Promise<Awaited<ReturnType<typeof shelfSignature>>> {
    return shelfSignature(this.#env, (await this.generation()).id, signing);
  }

  /**
   * One skill's signature in this request's generation, read from its shard's signatures (never
   * the whole document); null when the generation was published unsigned or the shelf does not sign.
   */
  async skillSignature(name: string): Promise<SkillSigning | null> {
    const generation = await this.generation();
    return skillSigning(this.#env, generation.id, generation.shardIndexOf(name), name);
  }

  /**
   * Every version of `names` in a retained generation, judged under the advisories in force now.
   * The version index is shelf-wide: a pinned request reads it against the current generation.
   */
  versions(names: readonly string[]): Promise<VersionsView> {
    const current = this.pinned ? new ShelfService(this.#env, this.#clock ? { clock: this.#clock } : {}) : this;
    return skillVersionsNow(this.#env, current, names);
  }

  /**
   * The newest of `versions` that `selector` matches and no advisory blocks, opened in its own
   * generation (a service pinned to it). Throws as shelf/versions.ts resolveVersion does.
   */
  resolve(versions: readonly JudgedVersion[], name: string, range: string, selector: VersionSelector): Promise<ResolvedVersion<ShelfService>> {
    return resolveVersion(
      (generation) => new ShelfService(this.#env, { generation, ...(this.#clock ? { clock: this.#clock } : {}) }),
      versions,
      name,
      range,
      selector,
    );
  }

  /** True when the request pinned a generation: its answers do not move with the pointer. */
  get pinned(): boolean {
    return this.#pinned !== undefined;
  }

  /**
   * The generation this request reads, opened once. Pinned, it has no `seq` or `publishedAt`
   * (null), even when it happens to be the current one.
   * @throws NotOnShelfError when nothing is published or the pinned id is unknown
   */
  generation(): Promise<Generation> {
    this.#generation ??= this.#open().then((generation) => {
      this.#servedFrom = generation.id;
      return generation;
    });
    return this.#generation;
  }

  /**
   * The id of the generation this request's answers come from, once it has been opened;
   * undefined before that, and when it could not be opened (nothing published, unknown id).
   */
  get servedFrom(): string | undefined {
    return this.#servedFrom;
  }

  /** The current pointer's seq (it moves with every history entry), pinned or not, once the generation is open. */
  get currentSeq(): number | null {
    return this.#currentSeq;
  }

  async #open(): Promise<Generation> {
    const pinned = this.#pinned;
    if (pinned !== undefined && !isSha256Hex(pinned)) throw NotOnShelfError.path();
    const options = this.#clock ? { clock: this.#clock } : {};
    // The current generation is opened even for a pinned request: it is in memory on a warm
    // isolate, and pinning the current id then costs nothing more.
    const current = await openGeneration(this.#env, options);
    if (!current) throw pinned === undefined ? NotOnShelfError.nothingPublished() : NotOnShelfError.generation(pinned);
    this.#currentSeq = current.seq;
    if (pinned === undefined) return current;
    if (pinned === current.id) return current.pinned();
    const byId = await openGenerationById(this.#env, pinned, options);
    if (!byId) throw NotOnShelfError.generation(pinned);
    return byId;
  }

  /**
   * The generation's lifecycle (lifecycle.yaml: deprecations, renames), null when it has none.
   * One blob read per isolate for a shelf that has one, none for a shelf that does not.
   */
  lifecycle(): Promise<Lifecycle | null> {
    this.#lifecycle ??= this.generation().then((generation) => generationLifecycle(generation));
    return this.#lifecycle;
  }

  /** The newest `limit` history entries with their change documents, newest first (the home page's "what's new"). */
  async recentChanges(limit: number): Promise<FeedEntry[]> {
    return recentChanges(this.#env, await shelfHistory(this.#env), limit);
  }

  /** Every servable skill, sorted by name: blocked ones absent, `requires_review` the edge verdict. */
  async skills(): Promise<ServedSkill[]> {
    const generation = await this.generation();
    return [...servedOf(await generation.sortedListing(), generation.advisories)];
  }

  /**
   * Up to `count` servable skills in shelf order (shard by shard, by name within a shard) after
   * the skill named `after` (or from the start), only those named in `only` when given (an MCP
   * scope); `more` when another such skill follows. Reads only the shards the walk reaches, so a
   * cold page of a paged listing (MCP skills/list) costs the shards it spans, two or three of a
   * thousand skills' 16, instead of every shard a listing in name order needs; with `only`, only
   * the shards those names live in.
   */
  async skillsInShelfOrder(after: string | undefined, count: number, only?: ReadonlySet<string>): Promise<{ skills: ServedSkill[]; more: boolean }> {
    const generation = await this.generation();
    const onlyShards = only === undefined ? undefined : new Set([...only].map((name) => generation.shardIndexOf(name)));
    const refs = onlyShards === undefined ? generation.manifest.shards : generation.manifest.shards.filter((ref) => onlyShards.has(ref.index));
    // A walk resumes in the shard `after` lives in (or the next one listed), past `after` there.
    const resumeIn = after === undefined ? -1 : generation.shardIndexOf(after);
    let position = 0;
    while (position < refs.length && refs[position]!.index < resumeIn) position++;
    const skills: ServedSkill[] = [];
    while (position < refs.length) {
      // As many shards as the manifest's counts say the skills still wanted need (the next page's
      // first one too, to know there is one): a page of 100 over shards of 40–60 skills reads its
      // two or three shards in one round trip, and more only when blocked or out-of-scope skills
      // fell out. A scope's shards (at most one per name it allows) are read in one go.
      const wanted = onlyShards === undefined ? count + 1 - skills.length : Number.POSITIVE_INFINITY;
      let end = position;
      for (let entries = 0; end < refs.length && (end === position || entries < wanted); end++) entries += refs[end]!.count;
      for (const { ref, skills: entries } of await generation.entriesOf(refs.slice(position, end))) {
        for (const skill of servedOf(entries, generation.advisories)) {
          if (ref.index === resumeIn && skill.name <= after!) continue;
          if (only !== undefined && !only.has(skill.name)) continue;
          if (skills.length === count) return { skills, more: true };
          skills.push(skill);
        }
      }
      position = end;
    }
    return { skills, more: false };
  }

  /**
   * One servable skill (its entry; reads one shard at most).
   * @throws NotOnShelfError when the shelf has no such skill
   * @throws SkillBlockedError when an advisory in force blocks it, naming the advisory
   */
  skill(name: string): Promise<ServedSkill> {
    let found = this.#skills.get(name);
    if (!found) {
      found = this.#findSkill(name);
      this.#skills.set(name, found);
    }
    return found;
  }

  async #findSkill(name: string): Promise<ServedSkill> {
    // Checked before the generation is opened: a name no skill can have costs no storage read.
    if (!isPlausibleSkillName(name)) throw NotOnShelfError.skill(name);
    const generation = await this.generation();
    const entry = await generation.findSkill(name);
    if (!entry) throw NotOnShelfError.skill(name);
    const verdict = edgeVerdict(generation.advisories, entry);
    if (verdict.blocked) throw new SkillBlockedError(name, verdict.blocked);
    return servedAs(entry, verdict.requiresReview);
  }

  /** A servable skill with its full record (one record read). */
  async record(name: string): Promise<SkillWithRecord> {
    const skill = await this.skill(name);
    const record = await (await this.generation()).readRecord(skill);
    return { skill, record };
  }

  /**
   * One file of a servable skill, looked up by its exact path in the record. SKILL.md comes
   * from the entry, so the hottest file costs no record read.
   * @throws NotOnShelfError, SkillBlockedError
   */
  async file(name: string, path: string): Promise<ShelfFile> {
    if (!isPlausibleFilePath(path)) throw NotOnShelfError.file(path, null);
    const skill = await this.skill(name);
    if (path === "SKILL.md") {
      return this.#blob(path, skill.skill_md.sha256, skill.skill_md.size, "text/markdown");
    }
    const { record } = await this.record(name);
    const found = record.files.find((f) => f.path === path);
    if (!found) throw NotOnShelfError.file(path, name);
    return this.#blob(path, found.sha256, found.size, found.media_type);
  }

  /**
   * A servable skill's instructions: its SKILL.md body exactly as agentskills-core's get_body
   * returns it. One R2 read the first time an isolate needs this SKILL.md, none after; the
   * bytes are checked against the manifest's digest before they are believed.
   * @throws NotOnShelfError, SkillBlockedError, StorageUnavailableError
   */
  async body(name: string): Promise<string> {
    const skill = await this.skill(name);
    const { sha256 } = skill.skill_md;
    const cached = bodies.get(sha256);
    if (cached !== undefined) return cached;
    const body = parseSkillMd(decodeSkillMd(await (await this.file(name, "SKILL.md")).readChecked())).body;
    bodies.set(sha256, body, body.length * 2);
    return body;
  }

  /** A servable skill's deterministic archive, `<name>.tar.gz` or `<name>.zip`. */
  async archive(name: string, format: ArchiveFormat): Promise<ShelfFile> {
    const skill = await this.skill(name);
    const ref = format === "tar.gz" ? skill.archives.tar_gz : skill.archives.zip;
    return this.#blob(`${name}.${format}`, ref.sha256, ref.size);
  }

  /**
   * A servable skill's Claude Code plugin zip as the build stored it (the record's
   * `archives.claude_plugin`); null when its generation was built before the build made one.
   */
  async pluginArchive(name: string): Promise<ShelfFile | null> {
    const ref = (await this.skill(name)).archives.claude_plugin;
    return ref ? this.#blob(`${name}.plugin.zip`, ref.sha256, ref.size) : null;
  }

  /** The shelf's state: generation, counts, skills needing review, blocked skills, advisories in force. */
  async status(): Promise<ShelfStatus> {
    const generation = await this.generation();
    const entries = await generation.listSkills();
    const verdicts = entries.map((e) => edgeVerdict(generation.advisories, e));
    const blocked = entries.flatMap((e, i) => (verdicts[i]!.blocked ? [{ name: e.name, advisory: verdicts[i]!.blocked! }] : []));
    const review = entries.filter((_e, i) => !verdicts[i]!.blocked && verdicts[i]!.requiresReview).map((e) => e.name);
    const manifest = generation.manifest;
    return {
      generation: generation.id,
      published_at: generation.publishedAt,
      counts: {
        skills: manifest.skill_count,
        served_skills: entries.length - blocked.length,
        blocked_skills: blocked.length,
        requires_review: review.length,
        files: manifest.file_count,
        total_bytes: manifest.total_bytes,
      },
      requires_review: review,
      blocked,
      advisories: { seq: generation.advisoriesSeq, in_force: generation.advisories },
    };
  }

  #blob(path: string, sha256: string, size: number, mediaType?: string): ShelfFile {
    const generation = this.generation();
    return {
      path,
      sha256,
      size,
      ...(mediaType !== undefined ? { mediaType } : {}),
      async open(range) {
        const opened = await (await generation).openBlob(sha256, range);
        if (opened === null) throw new MissingObjectError(r2Key("blob", sha256));
        return opened;
      },
      async readChecked() {
        return (await generation).readCheckedBlob(sha256, size);
      },
      async head() {
        return (await generation).headBlob(sha256);
      },
    };
  }
}

/** Lifecycles by blob digest: content-addressed, so valid across generations; small. */
const lifecycles = new MemoryCache<Lifecycle>(1024 * 1024);

async function generationLifecycle(generation: Generation): Promise<Lifecycle | null> {
  const ref = generation.manifest.shelf.lifecycle;
  if (!ref) return null;
  const known = lifecycles.get(ref.sha256);
  if (known) return known;
  const text = await generation.readJsonBlob(ref);
  const parsed = LifecycleSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new StorageUnavailableError(`the lifecycle blob ${ref.sha256} does not match its schema`);
  lifecycles.set(ref.sha256, parsed.data, text.length * 2);
  return parsed.data;
}
