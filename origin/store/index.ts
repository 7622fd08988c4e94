// Blob stores for the origin: the port and its adapters.
export type {
  BlobInfo,
  BlobStore,
  Body,
  ByteRange,
  FileBody,
  PutOptions,
} from "./blob-store.ts";
export { bodyLength, HEAD_CACHE_CONTROL, IMMUTABLE_CACHE_CONTROL } from "./blob-store.ts";
export { readBodyRange } from "./body-io.ts";
export { BufferPool } from "./buffer-pool.ts";
export { createDirectoryStore } from "./directory-store.ts";
export { createS3Store, type S3StoreConfig } from "./s3-store.ts";
export { openStore, parseStoreSpec, type StoreSpec } from "./store-spec.ts";
