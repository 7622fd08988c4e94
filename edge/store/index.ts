// Object readers for the edge: the port and its adapters (R2 binding, S3 over fetch, public URL).
export { createObjectReader, storeCacheScope } from "./create-object-reader.ts";
export type { ByteRange, ObjectInfo, ObjectReader, StoredObject } from "./object-reader.ts";
export { createPublicUrlReader } from "./public-url-reader.ts";
export { createR2Reader } from "./r2-reader.ts";
export { createS3FetchReader, type S3FetchConfig } from "./s3-fetch-reader.ts";
