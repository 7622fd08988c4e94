import type { TestProject } from "vitest/node";
// Type only (erased): the edge tests' view of what this setup provides, and its `inject` key.
import type { MotoFixture } from "../../edge/store/moto-fixture.ts";
import { startMoto } from "./moto.ts";

/** Global setup of the workerd project: starts moto_server for the edge store tests. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [signed, open] = await Promise.all([startMoto(), startMoto({ auth: false })]);
  await signed.createBucket("lightedge-edge");
  await open.createBucket("lightedge-public");
  const fixture: MotoFixture = {
    endpoint: signed.endpoint,
    region: signed.region,
    bucket: "lightedge-edge",
    accessKeyId: signed.accessKeyId,
    secretAccessKey: signed.secretAccessKey,
    publicEndpoint: open.endpoint,
    publicBucket: "lightedge-public",
  };
  project.provide("moto", fixture);
  return async () => {
    await Promise.all([signed.stop(), open.stop()]);
  };
}
