import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from "@aws-sdk/client-s3";
import { type BlobStore, bodyLength } from "./blob-store.ts";
import { readBodyRange } from "./body-io.ts";
import { cacheHeaders, isMissing, sha256Base64, storeError, verifyGetChecksum } from "./s3-helpers.ts";
import { putMultipart } from "./s3-multipart.ts";

/** Where an S3-compatible bucket is and how to sign for it. */
export interface S3StoreConfig {
  bucket: string;
  /** Key prefix inside the bucket ("" or ending in "/"). */
  prefix?: string;
  /** Custom endpoint (R2, MinIO, moto); absent for AWS. */
  endpoint?: string;
  /** "auto" for R2. */
  region?: string;
  /** Path-style URLs (MinIO, moto); R2 and AWS take virtual-host style. */
  forcePathStyle?: boolean;
  /** Absent: the SDK's default chain (AWS_ACCESS_KEY_ID/… env, profiles, instance roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Objects above this many bytes go up in parts of this size (≥ 5 MiB: S3's part minimum). */
  partBytes?: number;
  /** A connection attempt is abandoned after this long (default CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
  /** A request whose socket moves no byte for this long fails (default IDLE_TIMEOUT_MS). */
  idleTimeoutMs?: number;
}

const DEFAULT_PART_BYTES = 16 * 1024 * 1024;

/**
 * The SDK's Node handler waits forever by default (connectionTimeout and socketTimeout 0): a bucket
 * that accepts a GET and stalls mid-body would hang the stream reading it (without a client
 * deadline, for good) and a sealer's upload. These bound a connection attempt and a socket that
 * moves nothing; a slow but moving transfer (a 16 MiB part) is never cut. The SDK retries a timed
 * out request (maxAttempts), then the call fails Unavailable.
 */
export const CONNECT_TIMEOUT_MS = 5_000;
export const IDLE_TIMEOUT_MS = 30_000;

/**
 * S3 (or R2's S3 endpoint, MinIO…) as a blob store. Every upload carries its SHA-256 so the server
 * rejects bytes damaged in transit; whole-object reads check the stored SHA-256 on the way back.
 */
export function createS3Store(config: S3StoreConfig): BlobStore {
  const client = new S3Client(clientConfig(config));
  const Bucket = config.bucket;
  const full = (key: string) => `${config.prefix ?? ""}${key}`;
  const partBytes = Math.max(config.partBytes ?? DEFAULT_PART_BYTES, 5 * 1024 * 1024);
  return {
    async put(key, body, opts) {
      const common = { Bucket, Key: full(key), ...cacheHeaders(opts) };
      try {
        const length = bodyLength(body);
        if (length > partBytes) return await putMultipart(client, common, body, partBytes);
        const bytes = await readBodyRange(body, 0, length);
        await client.send(
          new PutObjectCommand({
            ...common,
            Body: bytes,
            ChecksumAlgorithm: "SHA256",
            ChecksumSHA256: sha256Base64(bytes),
          }),
        );
      } catch (err) {
        throw storeError(`put ${key}`, err);
      }
    },
    // `opts.into` is not used: the SDK hands the body over in pieces of its own.
    async get(key, range) {
      if (range?.length === 0) return (await this.stat(key)) ? new Uint8Array(0) : null;
      const Range = range ? `bytes=${range.offset}-${range.offset + range.length - 1}` : undefined;
      try {
        const res = await client.send(
          new GetObjectCommand({ Bucket, Key: full(key), Range, ChecksumMode: "ENABLED" }),
        );
        const bytes = await res.Body!.transformToByteArray();
        if (!range) verifyGetChecksum(key, res.ChecksumSHA256, bytes);
        return bytes;
      } catch (err) {
        if (isMissing(err)) return null;
        if (range && (err as { name?: string }).name === "InvalidRange") return new Uint8Array(0);
        throw storeError(`get ${key}`, err);
      }
    },
    async stat(key) {
      try {
        const res = await client.send(new HeadObjectCommand({ Bucket, Key: full(key) }));
        return { size: res.ContentLength ?? 0, etag: res.ETag ?? "" };
      } catch (err) {
        if (isMissing(err)) return null;
        throw storeError(`stat ${key}`, err);
      }
    },
    async list(prefix) {
      const keys: string[] = [];
      let ContinuationToken: string | undefined;
      try {
        do {
          const res = await client.send(
            new ListObjectsV2Command({ Bucket, Prefix: full(prefix), ContinuationToken }),
          );
          for (const o of res.Contents ?? []) if (o.Key) keys.push(o.Key.slice((config.prefix ?? "").length));
          ContinuationToken = res.IsTruncated ? res.NextContinuationToken : undefined;
        } while (ContinuationToken);
      } catch (err) {
        throw storeError(`list ${prefix}`, err);
      }
      return keys.sort();
    },
    async delete(keys) {
      // DeleteObjects takes at most 1,000 keys a call; an absent key is reported deleted (S3 API
      // reference, DeleteObjects), so only real failures come back in `Errors`.
      for (let i = 0; i < keys.length; i += DELETE_BATCH) {
        const batch = keys.slice(i, i + DELETE_BATCH);
        try {
          const res = await client.send(
            new DeleteObjectsCommand({
              Bucket,
              Delete: { Objects: batch.map((k) => ({ Key: full(k) })), Quiet: true },
            }),
          );
          const failed = res.Errors?.[0];
          if (failed)
            throw new Error(`${failed.Key}: ${failed.Code ?? "error"} ${failed.Message ?? ""}`.trim());
        } catch (err) {
          throw storeError(`delete ${batch[0]} (+${batch.length - 1})`, err);
        }
      }
    },
  };
}

/** Keys per DeleteObjects call: the API's limit. */
const DELETE_BATCH = 1000;

function clientConfig(config: S3StoreConfig): S3ClientConfig {
  return {
    region: config.region ?? "us-east-1",
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    forcePathStyle: config.forcePathStyle ?? false,
    ...(config.credentials ? { credentials: config.credentials } : {}),
    // We send SHA-256 ourselves and check it on reads; no extra CRC32 pass from the SDK.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    maxAttempts: 3,
    requestHandler: {
      connectionTimeout: config.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
      socketTimeout: config.idleTimeoutMs ?? IDLE_TIMEOUT_MS,
    },
  };
}
