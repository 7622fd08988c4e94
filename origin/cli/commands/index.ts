import { pino } from "pino";
import { Registry } from "prom-client";
import { createIndexMetrics } from "../../admin/index-metrics.ts";
import { startAdminServer } from "../../admin/server.ts";
import { configHelp, loadOriginConfig } from "../../config.ts";
import { isConfigurationError } from "../../index/config-error.ts";
import { openIndexer } from "../../index/from-config.ts";
import { progressLine } from "../../index/progress.ts";
import type { Command } from "../command.ts";

const help = `lightedge index — follow a Zcash node and publish sealed ranges to a store

usage: lightedge index --node URL --network NET --store dir:PATH|s3://BUCKET/PREFIX [--exit-when-synced] [options]

Syncs from the store's head (or --from), keeps the unfinalized tail in memory and in --data-dir,
seals ranges once every block is --seal-depth deep, then follows the tip (polling ≤ 1 s).
A progress bar on a terminal, JSON logs (pino) otherwise. Prometheus /metrics and /healthz on --admin.

${configHelp}

examples:
  lightedge index --node http://127.0.0.1:8232 --node-cookie ~/.cache/zebra/.cookie --network mainnet --store dir:./data/store
  lightedge index --node http://127.0.0.1:18232 --network regtest --store s3://bucket/lightedge --seal-depth 10 --exit-when-synced`;

export const command: Command = {
  summary: "follow a node, seal finalized ranges into a store (dir: or s3://)",
  help,
  async run(argv) {
    const config = loadOriginConfig(argv);
    const tty = config.progress === "on" || (config.progress === "auto" && process.stderr.isTTY === true);
    // On a terminal the progress bar replaces routine logs; warnings and errors still print.
    const log = pino(
      { level: tty ? "warn" : config.logLevel, base: { cmd: "index", network: config.network } },
      pino.destination(tty ? 2 : 1),
    );
    const registry = new Registry();
    const { indexer, node } = openIndexer(config, log, createIndexMetrics(registry));
    const admin = config.admin
      ? await startAdminServer({ ...config.admin, registry, health: { index: () => indexer.health() } })
      : undefined;
    if (admin) log.info({ admin: admin.url }, "admin listening (/metrics, /healthz)");
    const started = Date.now();
    const timer = tty
      ? setInterval(() => process.stderr.write(`\r\x1b[2K${progressLine(indexer.status())}`), 250)
      : undefined;
    const stop = new Promise<string>((resolve) => {
      process.once("SIGINT", () => resolve("SIGINT"));
      process.once("SIGTERM", () => resolve("SIGTERM"));
    });
    try {
      await indexer.start();
      const reason = await Promise.race([
        stop,
        indexer.failed(),
        config.exitWhenSynced ? indexer.synced().then(() => "synced") : new Promise<string>(() => {}),
      ]);
      await indexer.stop();
      const s = indexer.status();
      const seconds = (Date.now() - started) / 1000;
      if (timer) process.stderr.write(`\r\x1b[2K${progressLine(s)}\n`);
      log.info({ reason, tip: s.tip, sealedTip: s.sealedTip, nodeTip: s.nodeTip, seconds }, "index stopped");
      return s.phase === "alarm" ? 1 : 0;
    } catch (err) {
      if (!isConfigurationError(err)) throw err;
      if (timer) process.stderr.write("\n");
      process.stderr.write(`lightedge index: ${(err as Error).message}\n`);
      return 1;
    } finally {
      if (timer) clearInterval(timer);
      await admin?.close();
      node.close();
    }
  },
};
