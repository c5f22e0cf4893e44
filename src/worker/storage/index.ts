// The storage read API the shelf service uses; see docs/storage.md ("Read API"). Layers, bottom
// up: keys.ts (every key), documents.ts (memory → KV → R2 cache tiers), live.ts (pointer and
// advisories), generation.ts (one generation per request).
export { Generation, openGeneration, openGenerationById, PINNED_CHECK_TTL_MS, resetStorageMemory } from "./generation.ts";
export type { OpenGenerationOptions } from "./generation.ts";
export type { Clock, StorageBindings } from "./bindings.ts";
export type { AdvisoriesInForce } from "./live.ts";
export type { BlobHead, OpenedBlob } from "./documents.ts";
export { MissingObjectError, StorageUnavailableError } from "./errors.ts";
export { readChangeDocument, readPointerHistory } from "./changes.ts";
