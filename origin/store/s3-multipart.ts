import {
  AbortMultipartUploadCommand,
  type CompletedPart,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  type S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { type Body, bodyLength } from "./blob-store.ts";
import { readBodyRange } from "./body-io.ts";
import { sha256Base64 } from "./s3-helpers.ts";

interface Target {
  Bucket: string;
  Key: string;
  ContentType: string;
  CacheControl: string;
}

/**
 * Multipart upload for large objects (a full-projection range of sandblasting-era blocks can reach
 * hundreds of MB). Parts go up one at a time (memory stays at one part in flight); each part
 * carries its SHA-256; a failure aborts the upload so no orphaned parts are billed.
 */
export async function putMultipart(
  client: S3Client,
  target: Target,
  body: Body,
  partBytes: number,
): Promise<void> {
  const { UploadId } = await client.send(
    new CreateMultipartUploadCommand({ ...target, ChecksumAlgorithm: "SHA256" }),
  );
  const { Bucket, Key } = target;
  try {
    const Parts: CompletedPart[] = [];
    const length = bodyLength(body);
    for (let offset = 0, PartNumber = 1; offset < length; offset += partBytes, PartNumber++) {
      // One part's bytes at a time (a view of a single buffer, a copy of the parts it spans, a
      // read of a file's).
      const Body = await readBodyRange(body, offset, Math.min(offset + partBytes, length));
      const ChecksumSHA256 = sha256Base64(Body);
      const res = await client.send(
        new UploadPartCommand({
          Bucket,
          Key,
          UploadId,
          PartNumber,
          Body,
          ChecksumAlgorithm: "SHA256",
          ChecksumSHA256,
        }),
      );
      Parts.push({ PartNumber, ETag: res.ETag, ChecksumSHA256 });
    }
    await client.send(
      new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts } }),
    );
  } catch (err) {
    await client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId })).catch(() => undefined);
    throw err;
  }
}
