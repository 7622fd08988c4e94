import { availableParallelism } from "node:os";
import pino from "pino";
import { configHelp, loadOriginConfig, storeEnv } from "../../config.ts";
import { createNodeClient } from "../../node/index.ts";
import { openStore } from "../../store/index.ts";
import { backfillStore } from "../../treestate/backfill-store.ts";
import { isSyntheticNode } from "../../treestate/follow-start.ts";
import { type Command, UsageError } from "../command.ts";

const help = `usage: lightedge backfill-trees --node URL --network NET --store SPEC [options]

Computes the Sapling and Orchard tree states of sealed ranges that have none (history indexed
before tree states existed, or before the live origin's producer started) and stores them beside
the ranges: one 2^16-leaf subtree per worker-thread job, every subtree root checked against the
node's z_getsubtreesbyindex and a sample of heights against z_gettreestate (skipped on the dev
node's synthetic chain, whose tree states are placeholders). Blocks are read back from the store.
Resumable: the data dir keeps the next range to do; run it again to continue. Stops before the
first range the running origin already covered. Prints "BACKFILLED <ranges> <subtrees>".

  --workers N             worker threads (default: cores − 1, at least 1; 0 = inline)
  --sample-every N        compare every N-th range's last tree state with the node (10; 0 = off)
  --to-range I            stop before range index I

${configHelp}`;

const extra = { "--workers": "workers", "--sample-every": "sampleEvery", "--to-range": "toIndex" } as const;

/** Takes this command's own flags out, leaving the shared ones for loadOriginConfig. */
function takeFlags(argv: string[]) {
  const rest: string[] = [];
  const values: Partial<Record<(typeof extra)[keyof typeof extra], number>> = {};
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split("=", 2) as [string, string | undefined];
    const name = extra[flag as keyof typeof extra];
    if (name === undefined) {
      rest.push(argv[i]!);
      continue;
    }
    const text = inline ?? argv[++i] ?? "";
    if (!/^\d+$/.test(text)) throw new UsageError(`${flag} must be a non-negative integer (got "${text}")`);
    values[name] = Number(text);
  }
  return { rest, values };
}

async function run(argv: string[]): Promise<number> {
  const { rest, values } = takeFlags(argv);
  const config = loadOriginConfig(rest);
  const log = pino({ level: config.logLevel, base: { service: "lightedge-backfill-trees" } });
  const node = createNodeClient({
    url: config.node.url,
    auth: config.node.auth,
    network: config.network,
    timeoutMs: config.node.timeoutMs,
  });
  try {
    const synthetic = isSyntheticNode(await node.info());
    const result = await backfillStore({
      store: openStore(config.store, storeEnv(config)),
      network: config.network,
      node,
      dataDir: config.dataDir,
      workers: values.workers ?? Math.max(1, availableParallelism() - 1),
      sampleEvery: values.sampleEvery ?? 10,
      synthetic,
      toIndex: values.toIndex,
      onRange: (index, of) => log.info({ range: index, of }, "tree states stored"),
    });
    log.info(result, "backfill done");
    process.stdout.write(`BACKFILLED ${result.ranges} ${result.subtrees}\n`);
    return 0;
  } finally {
    node.close();
  }
}

export const command: Command = {
  summary: "compute and store tree states for sealed ranges that have none (resumable)",
  help,
  run,
};
