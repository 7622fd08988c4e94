import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
import { type EdgeDev, startEdgeDev } from "../../main/edge-dev.ts";

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

  it("puts the origin secret on no command line: wrangler, workerd and everything in their group", () => {
    const pgid = edge.child.pid!;
    let seen = 0;
    for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        // Field 5 (after the parenthesised command) is the process group.
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        if (Number(fields[2]) !== pgid) continue;
        seen++;
        expect(readFileSync(`/proc/${pid}/cmdline`, "utf8")).not.toContain(TEST_ORIGIN_SECRET);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      }
    }
    expect(seen).toBeGreaterThan(1); // wrangler and workerd at least
  });

  it("stops the whole tree and exits non-zero when wrangler dies (lightedge edge as a process)", async () => {
    const cli = spawn(
      process.execPath,
      [
        main,
        "edge",
        "--port",
        "0",
        "--store",
        `dir:${join(dir, "store")}`,
        "--persist",
        join(dir, "wrangler-cli"),
      ],
      { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LIGHTEDGE_ORIGIN_SECRET: "" } },
    );
    const exited = new Promise<number | null>((r) => cli.once("exit", (code) => r(code)));
    await new Promise<void>((resolve, reject) => {
      cli.stdout!.on("data", (d: Buffer) => String(d).includes("edge listening on") && resolve());
      cli.once("exit", (code) => reject(new Error(`lightedge edge exited with ${code}`)));
    });
    const wrangler = childrenOf(cli.pid!)[0]!;
    const group = groupMembers(wrangler);
    expect(group.length).toBeGreaterThan(1); // wrangler and workerd
    process.kill(wrangler, "SIGKILL");
    expect(await exited).toBe(1);
    for (let i = 0; i < 50 && groupMembers(wrangler).length > 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(groupMembers(wrangler)).toEqual([]);
  }, 90_000);
});

function procStat(pid: string): { ppid: number; pgid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] === "Z") return undefined; // a zombie is gone, only not yet reaped
    return { ppid: Number(fields[1]), pgid: Number(fields[2]) };
  } catch {
    return undefined;
  }
}

const pids = () => readdirSync("/proc").filter((p) => /^\d+$/.test(p));
const childrenOf = (pid: number) =>
  pids()
    .filter((p) => procStat(p)?.ppid === pid)
    .map(Number);
const groupMembers = (pgid: number) =>
  pids()
    .filter((p) => procStat(p)?.pgid === pgid)
    .map(Number);
