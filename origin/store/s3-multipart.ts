import {
  AbortMultipartUploadCommand,
  type CompletedPart,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  type S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
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
  bytes: Uint8Array,
  partBytes: number,
): Promise<void> {
  const { UploadId } = await client.send(
    new CreateMultipartUploadCommand({ ...target, ChecksumAlgorithm: "SHA256" }),
  );
  const { Bucket, Key } = target;
  try {
    const Parts: CompletedPart[] = [];
    for (let offset = 0, PartNumber = 1; offset < bytes.length; offset += partBytes, PartNumber++) {
      const Body = bytes.subarray(offset, Math.min(offset + partBytes, bytes.length));
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
