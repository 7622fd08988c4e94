import { describe, expect, it } from "vitest";
import { moto } from "./moto-fixture.ts";
import { createPublicUrlReader } from "./public-url-reader.ts";
import { describeObjectReaderContract } from "./reader-contract.ts";

const bucketUrl = `${moto.publicEndpoint}/${moto.publicBucket}`;

describeObjectReaderContract("the public-URL reader (open moto_server bucket)", async () => {
  const prefix = `public-contract-${crypto.randomUUID()}`;
  return {
    reader: createPublicUrlReader(bucketUrl, prefix),
    async put(key, bytes) {
      const res = await fetch(`${bucketUrl}/${prefix}/${key}`, {
        method: "PUT",
        body: new Uint8Array(bytes),
        // A public bucket's objects are readable anonymously; moto checks the ACL like S3.
        headers: { "x-amz-acl": "public-read" },
      });
      expect(res.status).toBe(200);
    },
  };
});

describe("the public-URL reader", () => {
  it("refuses a server that ignores Range rather than return the wrong bytes", async () => {
    // A moto URL whose path is the object itself, asked through a base that is not a bucket: the
    // public endpoint's root answers 200 with a listing, not the range asked for.
    const reader = createPublicUrlReader(moto.publicEndpoint);
    await expect(reader.get("", { offset: 5, length: 10 })).rejects.toMatchObject({ kind: "unavailable" });
  });
});
