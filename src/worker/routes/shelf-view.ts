// What the read routes need from storage, as a narrow interface: one generation, opened once per
// request, with its skill entries, records and blobs, and the advisories in force. The adapter
// over src/worker/storage lives in storage-view.ts; tests can supply their own.
import type { GenerationManifest, SkillEntry, SkillRecord } from "../../core/generation/manifest.ts";
import type { AdvisoryEntry } from "../../core/trust/records.ts";
import type { ByteRange } from "../http/file-response.ts";

/** The advisories in force: the list and the sequence number of its last change. */
export interface AdvisoriesInForce {
  advisories: readonly AdvisoryEntry[];
  seq: number;
}

/** One generation as the routes see it. Every method may throw on a storage failure (→ 503). */
export interface ShelfView {
  generation: string;
  /** When this generation became current; null when unknown (an older, pinned generation). */
  publishedAt: string | null;
  /** The pointer move that made this generation current (bumped by every publish and rollback); null when pinned. */
  pointerSeq?: number | null;
  manifest: GenerationManifest;
  /** The advisories in force now (not the build's). */
  advisories: AdvisoriesInForce;
  /** Every skill entry of the generation, sorted by name. */
  entries(): Promise<SkillEntry[]>;
  /** One skill's entry, or null when the generation has no such skill. */
  entry(name: string): Promise<SkillEntry | null>;
  /** A skill's full record (files, outline, trust inputs). */
  record(entry: SkillEntry): Promise<SkillRecord>;
  /** The stored bytes of a blob; null when missing (a storage inconsistency). */
  openBlob(sha256: string, range: ByteRange): Promise<ReadableStream<Uint8Array> | null>;
}

/**
 * Opens the current generation (no `generation`) or a pinned one. Resolves null when there is
 * nothing to serve: no generation published yet, or the pinned id is unknown.
 */
export type OpenShelfView<Env> = (env: Env, generation?: string) => Promise<ShelfView | null>;
