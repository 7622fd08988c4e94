import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SpawnedServer, spawnServer } from "../../../bench/lib/spawn.ts";
import { chainDir, hasChain } from "../../../test/support/chain.ts";
import { createDevNode, type DevNode } from "../../devnode/index.ts";
import { switchableProxy } from "../../index/testing.ts";
import { clientFor } from "../../serve/testing.ts";

const main = new URL("../main.ts", import.meta.url).pathname;

describe("lightedge origin", () => {
  let dev: DevNode;
  let origin: SpawnedServer;
  let dir: string;
  beforeAll(async () => {
    dev = await createDevNode({ synthetic: { blocks: 50, seed: "cli-origin" } });
    await dev.ready;
    dir = mkdtempSync(join(tmpdir(), "lightedge-origin-cli-"));
    origin = await spawnServer(
      "origin",
      [
        process.execPath,
        main,
        "origin",
        "--node",
        dev.url,
        "--network",
        "regtest",
        "--store",
        `dir:${join(dir, "store")}`,
        "--data-dir",
        join(dir, "data"),
        "--listen",
        "127.0.0.1:0",
        "--admin",
        "off",
        "--range-size",
        "10",
        "--seal-depth",
        "12",
        "--poll-ms",
        "50",
        "--ping",
        "--log-level",
        "warn",
      ],
      { timeoutMs: 20_000 },
    );
  });
  afterAll(async () => {
    await origin?.stop();
    await dev?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("indexes the node and serves it over gRPC and Connect from one process", async () => {
    const grpc = clientFor("grpc", origin.url);
    let height = -1n;
    for (let i = 0; i < 200 && height < 49n; i++) {
      height = await grpc.getLatestBlock({}).then(
        (b) => b.height,
        () => -1n,
      );
      if (height < 49n) await new Promise((r) => setTimeout(r, 50));
    }
    expect(height).toBe(49n);
    const block = await clientFor("connect", origin.url).getBlock({ height: 12n });
    expect(Buffer.from(block.hash).reverse().toString("hex")).toBe(dev.chain.hashAt(12));
    expect((await grpc.ping({ intervalUs: 0n })).entry).toBe(1n);
  });

  it("prints its help", async () => {
    const { execFileSync } = await import("node:child_process");
    const help = execFileSync(process.execPath, [main, "origin", "--help"], { encoding: "utf8" });
    expect(help).toMatch(/--listen HOST:PORT/);
    expect(help).toMatch(/--secret S/);
  });

  it("exits non-zero with one clear message on a node of another network", async () => {
    const { execFile } = await import("node:child_process");
    const args = [
      main,
      "origin",
      "--node",
      dev.url,
      "--network",
      "mainnet",
      "--store",
      `dir:${join(dir, "m")}`,
    ];
    args.push(
      "--data-dir",
      join(dir, "m-data"),
      "--listen",
      "127.0.0.1:0",
      "--admin",
      "off",
      "--log-level",
      "silent",
    );
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        args,
        { encoding: "utf8", timeout: 30_000 },
        (_err, _out, stderr) => resolve({ code: child.exitCode, stderr }),
      );
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toMatch(
      /^lightedge origin: node is on regtest \(chain "regtest", genesis [0-9a-f]{64}\) but lightedge is configured for mainnet$/,
    );
  });

  it.skipIf(!hasChain)(
    "exits non-zero when the node behind its URL turns out to be on another network mid-run",
    async () => {
      const { spawn } = await import("node:child_process");
      const mainnet = await createDevNode({ corpus: { dir: chainDir, from: 0, to: 20 }, network: "mainnet" });
      const proxy = await switchableProxy(dev.url);
      try {
        const args = [
          main,
          "origin",
          "--node",
          proxy.url,
          "--network",
          "regtest",
          "--store",
          `dir:${join(dir, "s")}`,
        ];
        args.push("--data-dir", join(dir, "s-data"), "--listen", "127.0.0.1:0", "--admin", "off");
        args.push("--range-size", "10", "--seal-depth", "12", "--poll-ms", "50", "--log-level", "silent");
        const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (d: Buffer) => {
          stdout += d;
        });
        child.stderr.on("data", (d: Buffer) => {
          stderr += d;
        });
        const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
        for (let i = 0; i < 400 && !stdout.includes("LISTENING"); i++)
          await new Promise((r) => setTimeout(r, 25));
        proxy.target(mainnet.url);
        const code = await Promise.race([
          exited,
          new Promise<"hung">((r) => setTimeout(() => r("hung"), 20_000)),
        ]);
        if (code === "hung") child.kill("SIGKILL");
        expect(code).toBe(1);
        expect(stderr).toMatch(
          /^lightedge origin: (node is (now )?on mainnet .* but lightedge is configured for regtest|the node's block 0 is 00040fe8.*not on regtest)$/m,
        );
      } finally {
        await proxy.close();
        await mainnet.close();
      }
    },
  );
});
