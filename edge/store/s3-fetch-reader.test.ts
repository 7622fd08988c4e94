import { AwsClient } from "aws4fetch";
import { describe, expect, it } from "vitest";
import { createObjectReader } from "./create-object-reader.ts";
import { moto } from "./moto-fixture.ts";
import { describeObjectReaderContract } from "./reader-contract.ts";
import { createS3FetchReader } from "./s3-fetch-reader.ts";

const signer = new AwsClient({
  accessKeyId: moto.accessKeyId,
  secretAccessKey: moto.secretAccessKey,
  region: moto.region,
  service: "s3",
});

describeObjectReaderContract("the S3-over-fetch reader (moto_server, SigV4)", async () => {
  const prefix = `s3-contract-${crypto.randomUUID()}/`;
  const config = { ...moto, prefix };
  return {
    reader: createS3FetchReader(config),
    async put(key, bytes) {
      const res = await signer.fetch(`${moto.endpoint}/${moto.bucket}/${prefix}${key}`, {
        method: "PUT",
        body: new Uint8Array(bytes),
      });
      expect(res.status).toBe(200);
    },
  };
});

describe("the S3-over-fetch reader against moto_server", () => {
  it("is chosen from S3_* vars when there is no binding", async () => {
    const key = `choose-${crypto.randomUUID()}.bin`;
    await signer.fetch(`${moto.endpoint}/${moto.bucket}/${key}`, { method: "PUT", body: new Uint8Array(4) });
    const reader = createObjectReader({
      ...{ NETWORKS: "testnet", VENDOR: "", VERSION: "", DONATION_ADDRESS: "" },
      S3_ENDPOINT: moto.endpoint,
      S3_BUCKET: moto.bucket,
      S3_REGION: moto.region,
      S3_ACCESS_KEY_ID: moto.accessKeyId,
      S3_SECRET_ACCESS_KEY: moto.secretAccessKey,
    });
    expect((await reader.head(key))?.size).toBe(4);
  });

  it("fails as unavailable, never as missing, when the signature is wrong", async () => {
    const reader = createS3FetchReader({ ...moto, secretAccessKey: "wrong" });
    await expect(reader.get("anything.bin")).rejects.toMatchObject({ kind: "unavailable" });
  });

  it("fails as unavailable when the endpoint is down", async () => {
    const reader = createS3FetchReader({ ...moto, endpoint: "http://127.0.0.1:9" });
    await expect(reader.head("anything.bin")).rejects.toMatchObject({ kind: "unavailable" });
  });
});
