// A dev node in its own process for the origin benches: prints "LISTENING <url>" when ready.
// usage: node bench/origin-devnode.ts --blocks N --seed S [--transparent heavy] [--warm-addresses]
// --warm-addresses builds the dev node's address index before it says LISTENING (it is built on the
// first address call otherwise: ≈ 1 CPU-ms per heavy block, longer than a node call may wait).
import { parseArgs } from "node:util";
import { createDevNode } from "../origin/devnode/index.ts";

const { values } = parseArgs({
  options: {
    blocks: { type: "string", default: "3000" },
    seed: { type: "string", default: "origin-bench" },
    transparent: { type: "string" },
    "warm-addresses": { type: "boolean", default: false },
  },
});
if (values.transparent !== undefined && values.transparent !== "heavy")
  throw new Error(`--transparent ${values.transparent}: only "heavy"`);
const node = await createDevNode({
  synthetic: {
    blocks: Number(values.blocks),
    seed: values.seed,
    transparent: values.transparent === "heavy" ? "heavy" : undefined,
  },
});
await node.ready;
if (values["warm-addresses"]) await node.addresses.ready(node.chain.tip());
process.stdout.write(`LISTENING ${node.url}\n`);
process.once("SIGTERM", () => node.close().then(() => process.exit(0)));
