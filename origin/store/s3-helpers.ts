import { createHash } from "node:crypto";
import { LightedgeError } from "../../proto/errors.ts";
import { HEAD_CACHE_CONTROL, IMMUTABLE_CACHE_CONTROL, type PutOptions } from "./blob-store.ts";

export function sha256Base64(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("base64");
}

export function cacheHeaders(opts?: PutOptions): { ContentType: string; CacheControl: string } {
  return {
    ContentType: opts?.contentType ?? "application/octet-stream",
    CacheControl: opts?.immutable ? IMMUTABLE_CACHE_CONTROL : HEAD_CACHE_CONTROL,
  };
}

/**
 * A whole-object read must match the SHA-256 the server stored at upload. Composite checksums
 * (multipart: "<base64>-<parts>") cover parts, not the object; those objects rely on the range
 * metadata's own SHA-256 (verifySection) instead.
 */
export function verifyGetChecksum(key: string, stored: string | undefined, bytes: Uint8Array): void {
  if (!stored || stored.includes("-")) return;
  if (sha256Base64(bytes) !== stored) {
    throw new LightedgeError(
      "corrupt",
      "s3-store",
      `get ${key}: SHA-256 of the body does not match the stored checksum`,
    );
  }
}

export function isMissing(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === "NoSuchKey" || e?.name === "NotFound" || e?.$metadata?.httpStatusCode === 404;
}

/** Anything else from S3 (network, auth, throttling, a rejected checksum) leaves the store unavailable. */
export function storeError(what: string, err: unknown): LightedgeError {
  if (err instanceof LightedgeError) return err;
  const e = err as { name?: string; message?: string };
  return new LightedgeError(
    "unavailable",
    "s3-store",
    `S3 ${what}: ${e?.name ?? "error"}: ${e?.message ?? String(err)}`,
    {
      cause: err,
    },
  );
}
