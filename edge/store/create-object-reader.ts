import { LightedgeError } from "../../proto/errors.ts";
import type { Env } from "../env.ts";
import { normalizePrefix } from "./key-prefix.ts";
import type { ObjectReader } from "./object-reader.ts";
import { createPublicUrlReader } from "./public-url-reader.ts";
import { createR2Reader } from "./r2-reader.ts";
import { createS3FetchReader, type S3FetchConfig } from "./s3-fetch-reader.ts";

/** The store a deployment configured: the BLOCKS binding, else S3 over fetch, else a public URL. */
type ConfiguredStore =
  | { kind: "r2"; bucket: R2Bucket }
  | { kind: "s3"; config: S3FetchConfig }
  | { kind: "url"; url: string };

function configuredStore(env: Env): ConfiguredStore {
  if (env.BLOCKS) return { kind: "r2", bucket: env.BLOCKS };
  const { S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY } = env;
  if (S3_ENDPOINT && S3_BUCKET && S3_ACCESS_KEY_ID && S3_SECRET_ACCESS_KEY) {
    return {
      kind: "s3",
      config: {
        endpoint: S3_ENDPOINT,
        bucket: S3_BUCKET,
        region: env.S3_REGION || "auto",
        accessKeyId: S3_ACCESS_KEY_ID,
        secretAccessKey: S3_SECRET_ACCESS_KEY,
        prefix: env.STORE_PREFIX,
      },
    };
  }
  if (env.STORE_PUBLIC_URL) return { kind: "url", url: env.STORE_PUBLIC_URL };
  throw new LightedgeError(
    "internal",
    "edge.store",
    "no object store configured: set the BLOCKS binding, S3_ENDPOINT/S3_BUCKET/S3_* secrets, or STORE_PUBLIC_URL",
  );
}

/** The reader the deployment configured: the BLOCKS binding, else S3 over fetch, else a public URL. */
export function createObjectReader(env: Env): ObjectReader {
  const store = configuredStore(env);
  if (store.kind === "r2") return createR2Reader(store.bucket, env.STORE_PREFIX);
  if (store.kind === "s3") return createS3FetchReader(store.config);
  return createPublicUrlReader(store.url, env.STORE_PREFIX);
}

/**
 * Which store the keys a deployment reads belong to, for its Cache API keys: the zone's cache is
 * shared by every Worker on it, and the same key (`v1/mainnet/…`) names different bytes in another
 * bucket or under another prefix. CACHE_NAMESPACE when set; else where `createObjectReader` reads.
 * An R2 binding does not say which bucket it is, so deployments binding different buckets on one
 * zone need CACHE_NAMESPACE (Terraform sets the bucket's name).
 */
export function storeCacheScope(env: Env): string {
  if (env.CACHE_NAMESPACE) return `ns:${env.CACHE_NAMESPACE}`;
  const prefix = normalizePrefix(env.STORE_PREFIX);
  const store = configuredStore(env);
  if (store.kind === "r2") return `r2:${prefix}`;
  if (store.kind === "s3") return `s3:${store.config.endpoint}/${store.config.bucket}/${prefix}`;
  return `url:${store.url}/${prefix}`;
}
