import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTreeStateReader,
  type LegacyTree,
  serializeFinalState,
  treeStateKey,
} from "../../../proto/treestate/index.ts";
import { parseBlock } from "../../chain/index.ts";
import { createDevNode, type DevNode } from "../../devnode/index.ts";
import { createDirectoryStore } from "../../store/index.ts";
import { naiveAppend } from "../../treestate/testing.ts";
import { command } from "./backfill-trees.ts";

const main = fileURLToPath(new URL("../main.ts", import.meta.url));
const RANGE = 5;

let dev: DevNode;
let dir: string;
beforeAll(async () => {
  dev = await createDevNode({ synthetic: { blocks: 40, seed: "backfill-trees" } });
  await dev.ready;
  dir = mkdtempSync(join(tmpdir(), "lightedge-backfill-trees-"));
});
afterAll(async () => {
  await dev?.close();
  rmSync(dir, { recursive: true, force: true });
});

const shared = () => [
  ...["--node", dev.url, "--network", "regtest", "--store", `dir:${join(dir, "store")}`],
  ...["--data-dir", join(dir, "data"), "--range-size", String(RANGE), "--log-level", "warn"],
];

describe("lightedge backfill-trees", () => {
  it("documents its flags in --help", () => {
    const help = execFileSync(process.execPath, [main, "backfill-trees", "--help"], { encoding: "utf8" });
    expect(help).toMatch(/usage: lightedge backfill-trees/);
    for (const flag of ["--workers N", "--sample-every N", "--to-range I", "--store SPEC"])
      expect(help).toContain(flag);
  });

  it("stores, resumably, the tree states a naive tree has after every sealed height", async () => {
    // A store indexed without tree states (`lightedge index`), ranges 0..5 sealed.
    await promisify(execFile)(process.execPath, [
      main,
      "index",
      ...shared(),
      ...["--seal-depth", "8", "--poll-ms", "30", "--admin", "off", "--exit-when-synced"],
    ]);
    const store = createDirectoryStore(join(dir, "store"));
    expect(await store.stat(treeStateKey("regtest", RANGE, 0))).toBeNull();

    expect(await command.run([...shared(), "--workers", "0", "--to-range", "2"])).toBe(0);
    expect(await store.stat(treeStateKey("regtest", RANGE, 1))).not.toBeNull();
    expect(await store.stat(treeStateKey("regtest", RANGE, 2))).toBeNull();
    const progress = JSON.parse(
      readFileSync(join(dir, "data", `backfill-trees-regtest-r${RANGE}.json`), "utf8"),
    );
    expect(progress).toEqual({ next: 2 });
    expect(await command.run([...shared(), "--workers", "0"])).toBe(0);

    const reader = createTreeStateReader({ read: (k, r) => store.get(k, r), network: "regtest" });
    let sapling: LegacyTree = { parents: [] };
    let orchard: LegacyTree = { parents: [] };
    for (let h = 0; h < 6 * RANGE; h++) {
      const block = parseBlock(dev.chain.block(h).raw);
      for (const tx of block.txs) {
        for (const o of tx.sapling.outputs) sapling = naiveAppend("sapling", sapling, o.cmu);
        for (const a of tx.orchard?.actions ?? []) orchard = naiveAppend("orchard", orchard, a.cmx);
      }
      const view = await reader.at(RANGE, h);
      expect([h, view?.saplingTree || "000000"]).toEqual([h, serializeFinalState(sapling)]);
      expect([h, view?.orchardTree || "000000"]).toEqual([h, serializeFinalState(orchard)]);
    }
  }, 60_000);
});
