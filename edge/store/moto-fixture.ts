import { inject } from "vitest";

/** What edge tests get from `inject("moto")` (provided by test/support/moto-global-setup.ts). */
export interface MotoFixture {
  /** SigV4-checking server, for the S3-over-fetch reader. */
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Open server (anonymous reads of public-read objects): a public bucket or CDN origin. */
  publicEndpoint: string;
  publicBucket: string;
}

declare module "vitest" {
  interface ProvidedContext {
    moto: MotoFixture;
  }
}

export const moto: MotoFixture = inject("moto");
