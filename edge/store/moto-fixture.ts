import { inject } from "vitest";

/**
 * What edge tests get from `inject("moto")`: two real moto_servers, each with one bucket (started by
 * test/support/moto-global-setup.ts, which types what it provides with this).
 */
export interface MotoFixture {
  /** SigV4-checking server, for the S3-over-fetch reader. */
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Open server (anonymous GET/PUT): the stand-in for a public bucket or CDN origin. */
  publicEndpoint: string;
  publicBucket: string;
}

declare module "vitest" {
  interface ProvidedContext {
    moto: MotoFixture;
  }
}

export const moto: MotoFixture = inject("moto");
