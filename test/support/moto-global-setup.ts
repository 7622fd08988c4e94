import type { TestProject } from "vitest/node";
import { startMoto } from "./moto.ts";

/** What edge tests get from `inject("moto")`: two real moto_servers, each with one bucket. */
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

/** Global setup of the workerd project: starts moto_server for the edge store tests. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [signed, open] = await Promise.all([startMoto(), startMoto({ auth: false })]);
  await signed.createBucket("lightedge-edge");
  await open.createBucket("lightedge-public");
  project.provide("moto", {
    endpoint: signed.endpoint,
    region: signed.region,
    bucket: "lightedge-edge",
    accessKeyId: signed.accessKeyId,
    secretAccessKey: signed.secretAccessKey,
    publicEndpoint: open.endpoint,
    publicBucket: "lightedge-public",
  });
  return async () => {
    await Promise.all([signed.stop(), open.stop()]);
  };
}
