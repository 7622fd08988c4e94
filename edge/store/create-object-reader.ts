import { LightedgeError } from "../../proto/errors.ts";
import type { Env } from "../env.ts";
import type { ObjectReader } from "./object-reader.ts";
import { createPublicUrlReader } from "./public-url-reader.ts";
import { createR2Reader } from "./r2-reader.ts";
import { createS3FetchReader } from "./s3-fetch-reader.ts";

/** The reader the deployment configured: the BLOCKS binding, else S3 over fetch, else a public URL. */
export function createObjectReader(env: Env): ObjectReader {
  if (env.BLOCKS) return createR2Reader(env.BLOCKS, env.STORE_PREFIX);
  const { S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY } = env;
  if (S3_ENDPOINT && S3_BUCKET && S3_ACCESS_KEY_ID && S3_SECRET_ACCESS_KEY) {
    return createS3FetchReader({
      endpoint: S3_ENDPOINT,
      bucket: S3_BUCKET,
      region: env.S3_REGION || "auto",
      accessKeyId: S3_ACCESS_KEY_ID,
      secretAccessKey: S3_SECRET_ACCESS_KEY,
      prefix: env.STORE_PREFIX,
    });
  }
  if (env.STORE_PUBLIC_URL) return createPublicUrlReader(env.STORE_PUBLIC_URL, env.STORE_PREFIX);
  throw new LightedgeError(
    "internal",
    "edge.store",
    "no object store configured: set the BLOCKS binding, S3_ENDPOINT/S3_BUCKET/S3_* secrets, or STORE_PUBLIC_URL",
  );
}
