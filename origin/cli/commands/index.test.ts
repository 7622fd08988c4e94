import { execFile, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevNode, type DevNode } from "../../devnode/index.ts";
import { tempDir } from "../../index/testing.ts";

const main = fileURLToPath(new URL("../main.ts", import.meta.url));
const run = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [main, "index", ...args], {
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 20_000,
  });

let dev: DevNode;
const dirs = [tempDir("cli-store"), tempDir("cli-data")];
beforeAll(async () => {
  dev = await createDevNode({ synthetic: { blocks: 40, seed: "cli" }, network: "regtest" });
  await dev.ready;
});
afterAll(async () => {
  await dev?.close();
  for (const d of dirs) d.remove();
});

describe("lightedge index", () => {
  it("documents the command-line contract in --help", () => {
    const out = run(["--help"]);
    expect(out.status).toBe(0);
    expect(out.stdout).toContain(
      "lightedge index --node URL --network NET --store dir:PATH|s3://BUCKET/PREFIX [--exit-when-synced]",
    );
    for (const flag of [
      "--node-cookie",
      "--data-dir",
      "--concurrency",
      "--range-size",
      "--seal-depth",
      "--admin",
    ]) {
      expect(out.stdout).toContain(flag);
    }
  });

  it("exits 2 with the help on bad usage", () => {
    const out = run(["--network", "mainnet", "--node", "http://127.0.0.1:1", "--seal-depth", "5"]);
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(/seal-depth must be ≥ 100 on mainnet/);
  });

  it("syncs with --exit-when-synced, taking settings from the environment, and logs JSON off a terminal", async () => {
    // Async: the dev node runs in this process and must keep answering.
    const out = await promisify(execFile)(
      process.execPath,
      [
        main,
        "index",
        "--node",
        dev.url,
        "--network",
        "regtest",
        "--store",
        `dir:${dirs[0]!.path}`,
        "--exit-when-synced",
      ],
      {
        encoding: "utf8",
        timeout: 20_000,
        env: {
          ...process.env,
          LIGHTEDGE_DATA_DIR: dirs[1]!.path,
          LIGHTEDGE_RANGE_SIZE: "10",
          LIGHTEDGE_SEAL_DEPTH: "5",
          LIGHTEDGE_ADMIN: "127.0.0.1:0",
        },
      },
    );
    const lines = out.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.find((l) => l.msg === "index stopped")).toMatchObject({
      reason: "synced",
      tip: 39,
      sealedTip: 29,
    });
    expect(lines.some((l) => typeof l.admin === "string")).toBe(true);
  });
});
