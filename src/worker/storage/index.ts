// The storage read API the routes use; see docs/storage.md ("Read API").
export { openGeneration, openGenerationById, readBlob, headBlob, resetStorageMemory, Generation } from "./reader.ts";
export type { Clock, StorageBindings, OpenGenerationOptions } from "./reader.ts";
export { StorageUnavailableError } from "./errors.ts";
