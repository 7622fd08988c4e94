import { AwsClient } from "aws4fetch";
import { LightedgeError } from "../../proto/errors.ts";
import { httpGet, httpHead } from "./http-object.ts";
import { keyPath, normalizePrefix } from "./key-prefix.ts";
import type { ObjectReader } from "./object-reader.ts";

export interface S3FetchConfig {
  /** e.g. https://<account>.r2.cloudflarestorage.com (path-style requests). */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  prefix?: string;
}

/**
 * Reads from any S3-compatible store over fetch, signed with SigV4 (aws4fetch). Responses are
 * returned as they arrive, so the body stays a native stream.
 */
export function createS3FetchReader(config: S3FetchConfig): ObjectReader {
  // One retry only: the edge must answer Unavailable within about a second, not after backoff.
  const client = new AwsClient({
    accessKeyId: config.accessKeyId,
    secretAccessKey: config.secretAccessKey,
    region: config.region,
    service: "s3",
    retries: 1,
  });
  const base = `${config.endpoint.replace(/\/+$/, "")}/${encodeURIComponent(config.bucket)}/`;
  const prefix = normalizePrefix(config.prefix);
  const url = (key: string) => `${base}${keyPath(prefix + key)}`;
  const send = async (key: string, init: RequestInit): Promise<Response> => {
    try {
      return await client.fetch(url(key), init);
    } catch (cause) {
      throw new LightedgeError("unavailable", "edge.store", `object store: ${key}: unreachable`, { cause });
    }
  };
  return { get: (key, range) => httpGet(send, key, range), head: (key) => httpHead(send, key) };
}
