// Tree states off the indexing thread (issue 10). `node bench/trees-index.ts [--blocks N]` (~1 min
// at 2,000): (1) startOrigin over the dev node's synthetic chain from genesis, to the tip, without
// and with tree states, side by side; (2) main-thread cost per block of the worker hooks against
// the inline producer; (3) the worker's hashing rate (leaves/s) until its objects are stored.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadOriginConfig } from "../origin/config.ts";
import { createDevNode } from "../origin/devnode/index.ts";
import { buildIndexedBlock } from "../origin/index/build-block.ts";
import { startOrigin } from "../origin/main/start-origin.ts";
import {
  commitmentsOfCompact,
  createSubtreeLedger,
  createTreeStateProducer,
  createTreeStateThread,
} from "../origin/treestate/index.ts";

const arg = process.argv.indexOf("--blocks");
const BLOCKS = arg > 0 ? Number(process.argv[arg + 1]) : 2000;
const RANGE = 100;
const dev = await createDevNode({ synthetic: { blocks: BLOCKS, seed: "bench-trees-index" } });
await dev.ready;
const dir = mkdtempSync(join(tmpdir(), "lightedge-bench-trees-"));
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

async function indexRun(name: string, treeStates: boolean) {
  const config = loadOriginConfig([
    ...["--node", dev.url, "--network", "regtest", "--store", `dir:${join(dir, name, "store")}`],
    ...["--data-dir", join(dir, name, "data"), "--listen", "127.0.0.1:0", "--admin", "off"],
    ...["--range-size", String(RANGE), "--seal-depth", "10", "--poll-ms", "20", "--log-level", "error"],
  ]);
  const t0 = performance.now();
  const origin = await startOrigin(config, { treeStates });
  while (origin.indexer.status().tip < BLOCKS - 1) await new Promise((r) => setTimeout(r, 5));
  const indexed = performance.now() - t0;
  await origin.treeStates.settled(BLOCKS - 1);
  const settled = performance.now() - t0;
  await origin.close();
  return { indexed, settled };
}

const without = await indexRun("without", false);
const withTrees = await indexRun("with", true);

// Main-thread cost per block: the worker hooks (leaf scan + postMessage) vs the inline producer.
const blocks = Array.from({ length: Math.min(BLOCKS, 300) }, (_, h) => buildIndexedBlock(dev.chain.block(h)));
const leaves = blocks.reduce((n, b) => {
  const c = commitmentsOfCompact(b.messages.full);
  return n + c.saplingCmus.length + c.orchardCmxs.length;
}, 0);
const config = {
  network: "regtest",
  chainName: "regtest",
  rangeSize: RANGE,
  activations: { sapling: 0, orchard: 0 },
};
const thread = createTreeStateThread({ config, write: async () => {} });
thread.start({ height: -1, sapling: "000000", orchard: "000000" }, []);
let t = performance.now();
for (const b of blocks) thread.append([b]);
const postMs = (performance.now() - t) / blocks.length;
t = performance.now();
await thread.settled(blocks.length - 1);
const workerMs = performance.now() - t;
await thread.close();
const inline = createTreeStateProducer({ ...config, ledger: createSubtreeLedger() });
inline.start({ height: -1, sapling: "000000", orchard: "000000" });
inline.onAppend(blocks.slice(0, 1)); // tables built outside the timing
t = performance.now();
for (const b of blocks.slice(1)) inline.onAppend([b]);
const inlineMs = (performance.now() - t) / (blocks.length - 1);

console.log(
  JSON.stringify(
    {
      blocks: BLOCKS,
      leavesPerBlock: round(leaves / blocks.length),
      indexBlocksPerSecond: {
        withoutTreeStates: round(BLOCKS / (without.indexed / 1000)),
        withTreeStates: round(BLOCKS / (withTrees.indexed / 1000)),
        ratio: round(without.indexed / withTrees.indexed, 2),
      },
      treeStatesStoredThroughTipAfterSeconds: round(withTrees.settled / 1000),
      mainThreadMsPerBlock: { workerHooks: round(postMs, 3), inlineProducer: round(inlineMs, 2) },
      workerLeavesPerSecond: round(leaves / (workerMs / 1000), 0),
      workerMsIncludesTableBuild: true,
    },
    null,
    2,
  ),
);
await dev.close();
rmSync(dir, { recursive: true, force: true });
