// A dev node in its own process for the origin benches: prints "LISTENING <url>" when ready.
// usage: node bench/origin-devnode.ts --blocks N --seed S [--transparent heavy]
import { parseArgs } from "node:util";
import { createDevNode } from "../origin/devnode/index.ts";

const { values } = parseArgs({
  options: {
    blocks: { type: "string", default: "3000" },
    seed: { type: "string", default: "origin-bench" },
    transparent: { type: "string" },
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
process.stdout.write(`LISTENING ${node.url}\n`);
process.once("SIGTERM", () => node.close().then(() => process.exit(0)));
