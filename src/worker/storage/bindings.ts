// What the storage layer is given: the two bindings it reads, and a clock so its TTLs are testable.

/** Milliseconds since the epoch; injected so TTLs are testable. */
export type Clock = () => number;

/** The two bindings storage needs (a subset of the Worker's bindings). */
export interface StorageBindings {
  SHELF_BUCKET: R2Bucket;
  SHELF_KV: KVNamespace;
}
