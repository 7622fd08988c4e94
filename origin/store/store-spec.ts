import { resolve } from "node:path";
import { LightedgeError } from "../../proto/errors.ts";
import type { BlobStore } from "./blob-store.ts";
import { createDirectoryStore } from "./directory-store.ts";
import { createS3Store, type S3StoreConfig } from "./s3-store.ts";

/** A parsed `--store` value: `dir:PATH` or `s3://BUCKET[/PREFIX]`. */
export type StoreSpec = { kind: "dir"; root: string } | { kind: "s3"; config: S3StoreConfig };

type Env = Record<string, string | undefined>;

/**
 * Where the S3 endpoint and region are read from, the first one set winning: the one name, as
 * the edge's Worker vars have it (edge/env.ts); the deprecated LIGHTEDGE_S3_* aliases (what
 * infra/modules/origin-host wrote before it wrote S3_*); then the AWS SDK's own names.
 */
export const S3_ENDPOINT_VARS = [
  "S3_ENDPOINT",
  "LIGHTEDGE_S3_ENDPOINT",
  "AWS_ENDPOINT_URL_S3",
  "AWS_ENDPOINT_URL",
];
export const S3_REGION_VARS = ["S3_REGION", "LIGHTEDGE_S3_REGION", "AWS_REGION", "AWS_DEFAULT_REGION"];

/** The first of `names` set (non-empty) in `env`. */
export function firstSet(env: Env, names: readonly string[]): string | undefined {
  for (const name of names) if (env[name]) return env[name];
  return undefined;
}

/**
 * Parses a store spec. S3 settings come from the environment: endpoint and region as above,
 * credentials S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY (else the AWS SDK's chain);
 * S3_FORCE_PATH_STYLE=0|1 overrides the default (path style whenever an endpoint is set: MinIO
 * and moto need it, R2 accepts it).
 */
export function parseStoreSpec(spec: string, env: Env = process.env): StoreSpec {
  if (spec.startsWith("dir:") && spec.length > 4)
    return Object.freeze({ kind: "dir", root: resolve(spec.slice(4)) });
  const s3 = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(spec);
  if (!s3) {
    throw new LightedgeError(
      "bad-request",
      "store-spec",
      `store must be dir:PATH or s3://BUCKET/PREFIX, got ${JSON.stringify(spec)}`,
    );
  }
  const rawPrefix = (s3[2] ?? "").replace(/^\/+|\/+$/g, "");
  return Object.freeze({
    kind: "s3",
    config: Object.freeze(s3Config(s3[1]!, rawPrefix ? `${rawPrefix}/` : "", env)),
  });
}

function s3Config(bucket: string, prefix: string, env: Env): S3StoreConfig {
  const endpoint = firstSet(env, S3_ENDPOINT_VARS);
  const isR2 = endpoint?.includes(".r2.cloudflarestorage.com") ?? false;
  const region = firstSet(env, S3_REGION_VARS) ?? (isR2 ? "auto" : "us-east-1");
  const pathStyle = env.S3_FORCE_PATH_STYLE;
  const accessKeyId = env.S3_ACCESS_KEY_ID;
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY;
  return {
    bucket,
    prefix,
    region,
    forcePathStyle:
      pathStyle === undefined || pathStyle === ""
        ? endpoint !== undefined
        : /^(1|true|yes)$/i.test(pathStyle),
    ...(endpoint ? { endpoint } : {}),
    ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
  };
}

export function openStore(spec: StoreSpec | string, env?: Env): BlobStore {
  const parsed = typeof spec === "string" ? parseStoreSpec(spec, env) : spec;
  return parsed.kind === "dir" ? createDirectoryStore(parsed.root) : createS3Store(parsed.config);
}
