import { rmSync } from "node:fs";
import { renderBanner } from "../../main/banner.ts";
import { type StartedAll, startAll } from "../../main/start-all.ts";
import { parseStartArgs } from "../../main/start-args.ts";
import type { Command } from "../command.ts";

const help = `usage: lightedge start [options]      (npm start -- [options])

Runs the whole system locally. With no configuration: a dev node on a SYNTHETIC chain (not Zcash
mainnet), the origin indexing it into a directory store under --data and serving gRPC/Connect,
and the edge under wrangler dev reading that same directory. Prints the URLs and an example call
once everything answers; Ctrl-C (SIGINT) or SIGTERM stops everything.

  --edge-port P        edge (gRPC-web, Connect; browser wallets)       default 8787 (0 = any)
  --origin-port P      origin (gRPC, Connect; mobile wallets)          default 9067 (0 = any)
  --admin-port P|off   origin status page, /metrics, /healthz          default 9464 (0 = any)
  --data DIR           where the store and state go                    default ./data
  --blocks N           dev chain length                                default 1000
  --seed S             dev chain seed (same seed, same chain)          default "lightedge"
  --quiet              hide wrangler's output

A real node instead of the dev chain:
  --node URL           zebrad/zcashd JSON-RPC URL (or LIGHTEDGE_NODE_URL)
  --network NET        mainnet | testnet | regtest (or LIGHTEDGE_NETWORK; default mainnet)
  --node-user U --node-password P | --node-cookie FILE     node auth (or LIGHTEDGE_NODE_*)

Any other \`lightedge origin\` flag is passed on (--concurrency, --range-size, --seal-depth, --from,
--log-level …; see \`lightedge origin --help\`). The dev chain's data (DIR/synthetic) is rebuilt at
every start: range size 100, seal depth 10, so ranges seal within seconds. With --node the store
is DIR/store and indexing resumes where it stopped.
`;

async function run(argv: string[]): Promise<number> {
  const { options, source } = parseStartArgs(argv, process.env);
  const started = performance.now();
  // A synthetic chain is regenerated each time; a store from another seed would not chain onto it.
  if (options.dev) rmSync(options.dataDir, { recursive: true, force: true });
  process.stdout.write(`lightedge: starting on ${source}\n`);
  // Offline by design: without this, wrangler dev tries workers.cloudflare.com for Request.cf and
  // prints a DNS error stack at every start (miniflare reads it from the environment).
  process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false";
  // Signals are caught before anything starts, so a Ctrl-C during start-up still stops it all.
  const signals = catchSignals();
  const all = await startAll(options);
  // A dead indexer ends everything, non-zero (a configuration error: wrong network, a --from the
  // node does not serve); transient failures are retried inside the origin.
  const failed = all.origin.indexer
    .failed()
    .catch((err: unknown) => `indexer stopped: ${err instanceof Error ? err.message : String(err)}`);
  // So does a child that dies on its own (wrangler, or workerd under it): the edge's supervisor has
  // stopped the rest of its tree by then; a half-running system must not look healthy.
  const edgeDied = all.edge.failed.then(
    (exit) => `${exit.name} exited (${exit.signal ?? `code ${exit.code}`}); stopping everything`,
  );
  const stopped: Promise<string | undefined> = Promise.race([signals.stopped, failed, edgeDied]);
  try {
    if (all.devnode) await Promise.race([all.synced.catch(() => {}), stopped]);
    else
      all.synced.then(
        () => process.stdout.write("lightedge: caught up with the node\n"),
        (err: unknown) => process.stderr.write(`lightedge: indexing stopped: ${String(err)}\n`),
      );
    if (!(await isStopping(stopped))) process.stdout.write(banner(all, source, started));
    const fatal = await stopped;
    if (fatal) {
      process.stderr.write(`lightedge: ${fatal}\n`);
      return 1;
    }
    process.stdout.write("lightedge: stopping\n");
  } finally {
    await all.close();
  }
  process.stdout.write("lightedge: stopped\n");
  return 0;
}

function banner(all: StartedAll, source: string, started: number): string {
  const view = all.origin.indexer.view;
  return renderBanner({
    source,
    edgeUrl: all.edgeUrl,
    originUrl: all.originUrl,
    adminUrl: all.adminUrl,
    devnodeUrl: all.devnode?.url,
    dataDir: all.dataDir,
    tip: all.origin.indexer.lastBlock()?.height,
    sealedTip: view.sealedTip(),
    seconds: (performance.now() - started) / 1000,
  });
}

/**
 * `stopped` resolves on the first SIGINT/SIGTERM; a second one exits at once, and the edge
 * supervisor's exit hook (origin/main/supervise.ts) SIGKILLs every child's process group on the way
 * out — wrangler and the workerd under it alike.
 */
function catchSignals(): { stopped: Promise<undefined> } {
  let count = 0;
  const stopped = new Promise<undefined>((resolve) => {
    const onSignal = () => {
      if (++count === 1) return resolve(undefined);
      process.exit(130);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
  return { stopped };
}

async function isStopping(stopped: Promise<unknown>): Promise<boolean> {
  return Promise.race([stopped.then(() => true), new Promise<boolean>((r) => setImmediate(() => r(false)))]);
}

export const command: Command = {
  summary: "run the whole system locally: dev node (or --node), origin, edge under wrangler dev",
  help,
  run,
};
