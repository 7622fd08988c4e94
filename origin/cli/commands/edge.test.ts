import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { toBinary } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CompactBlockSchema, CompactTxStreamer } from "../../../proto/index.ts";
import { hasChain } from "../../../test/support/chain.ts";
import { buildSeed, type Seed } from "../../../test/support/seed-ranges.ts";
import { startTestOrigin, TEST_ORIGIN_SECRET, type TestOrigin } from "../../../test/support/test-origin.ts";
import { type EdgeDev, startEdgeDev } from "./edge.ts";

const main = new URL("../main.ts", import.meta.url).pathname;

describe("lightedge edge", () => {
  it("documents its flags in --help", () => {
    const help = execFileSync(process.execPath, [main, "edge", "--help"], { encoding: "utf8" });
    for (const flag of ["--port", "--origin", "--store", "dir:PATH", "--persist"])
      expect(help).toContain(flag);
  });
});

describe.skipIf(!hasChain)("lightedge edge --store dir:PATH under wrangler dev", () => {
  let seed: Seed;
  let dir: string;
  let origin: TestOrigin;
  let edge: EdgeDev;

  beforeAll(async () => {
    seed = buildSeed();
    dir = mkdtempSync(join(tmpdir(), "lightedge-edge-cli-"));
    // The directory store's layout: one file per key, "/" as directories.
    for (const [key, bytes] of seed.objects) {
      const path = join(dir, "store", ...key.split("/"));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, bytes);
    }
    origin = await startTestOrigin({ network: "testnet", blocks: seed.blocks.get("testnet")! });
    edge = await startEdgeDev({
      port: 0,
      store: `dir:${join(dir, "store")}`,
      persist: join(dir, "wrangler"),
      networks: "testnet",
      origin: origin.url,
      originSecret: TEST_ORIGIN_SECRET,
      quiet: true,
    });
  }, 90_000);

  afterAll(async () => {
    await edge?.stop();
    await origin?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("serves the directory's sealed ranges and the origin's tail in one stream", async () => {
    const client = createClient(
      CompactTxStreamer,
      createGrpcWebTransport({ baseUrl: edge.url, httpVersion: "1.1" }),
    );
    const tip = seed.heads.get("testnet")!.tip!.height;
    const got: Uint8Array[] = [];
    for await (const b of client.getBlockRange({
      start: { height: BigInt(tip - 25) },
      end: { height: BigInt(tip + 15) },
    })) {
      got.push(toBinary(CompactBlockSchema, b));
    }
    const want = seed.blocks.get("testnet")!.filter((b) => b.height >= tip - 25 && b.height <= tip + 15);
    expect(got).toEqual(want.map((b) => b.shielded));
    expect(origin.calls.get("GetBlockRange")).toBe(1);
  });
});
