import { describe, expect, it } from "vitest";
import { parseStoreSpec } from "./store-spec.ts";

describe("parseStoreSpec", () => {
  it("reads dir:PATH as an absolute directory", () => {
    const spec = parseStoreSpec("dir:./data/blocks", {});
    expect(spec.kind).toBe("dir");
    expect(spec.kind === "dir" && spec.root.endsWith("/data/blocks") && spec.root.startsWith("/")).toBe(true);
  });

  it("reads s3://BUCKET/PREFIX with settings from the environment", () => {
    const spec = parseStoreSpec("s3://my-bucket/deploy/one/", {
      S3_ENDPOINT: "https://acct.r2.cloudflarestorage.com",
      S3_ACCESS_KEY_ID: "id",
      S3_SECRET_ACCESS_KEY: "secret",
    });
    expect(spec).toEqual({
      kind: "s3",
      config: {
        bucket: "my-bucket",
        prefix: "deploy/one/",
        endpoint: "https://acct.r2.cloudflarestorage.com",
        region: "auto",
        forcePathStyle: true,
        credentials: { accessKeyId: "id", secretAccessKey: "secret" },
      },
    });
  });

  it("leaves AWS defaults alone when nothing is set", () => {
    expect(parseStoreSpec("s3://plain-bucket", {})).toEqual({
      kind: "s3",
      config: { bucket: "plain-bucket", prefix: "", region: "us-east-1", forcePathStyle: false },
    });
    const aws = parseStoreSpec("s3://b-1/x", { AWS_REGION: "eu-west-1", S3_FORCE_PATH_STYLE: "0" });
    expect(aws.kind === "s3" && aws.config.region).toBe("eu-west-1");
  });

  it("takes S3_ENDPOINT over the deprecated LIGHTEDGE_S3_ENDPOINT, and that over the AWS names", () => {
    const endpoint = (env: Record<string, string>) => {
      const spec = parseStoreSpec("s3://b-1/x", env);
      return spec.kind === "s3" ? spec.config.endpoint : undefined;
    };
    const aws = { AWS_ENDPOINT_URL_S3: "http://aws-s3", AWS_ENDPOINT_URL: "http://aws" };
    expect(endpoint(aws)).toBe("http://aws-s3");
    expect(endpoint({ ...aws, LIGHTEDGE_S3_ENDPOINT: "http://old" })).toBe("http://old");
    expect(endpoint({ ...aws, LIGHTEDGE_S3_ENDPOINT: "http://old", S3_ENDPOINT: "http://one" })).toBe(
      "http://one",
    );
  });

  it("refuses anything else as a bad request", () => {
    for (const bad of ["", "dir:", "/tmp/x", "s3://", "s3://UPPER/x", "gs://bucket/x"]) {
      expect(() => parseStoreSpec(bad, {}), bad).toThrow(expect.objectContaining({ kind: "bad-request" }));
    }
  });
});
