import pino from "pino";
import { Registry } from "prom-client";
import { createIndexMetrics } from "../../admin/index-metrics.ts";
import { startAdminServer } from "../../admin/server.ts";
import { configHelp, loadOriginConfig, serverConfigHelp } from "../../config.ts";
import { createIndexer } from "../../index/index.ts";
import { createNodeClient } from "../../node/index.ts";
import { createOriginServer, createServeMetrics } from "../../serve/index.ts";
import { openStore } from "../../store/index.ts";
import type { Command } from "../command.ts";

const help = `usage: lightedge origin --node URL --network NET --store SPEC --listen HOST:PORT [options]

Runs the indexer and the RPC server in one process: follows the node, seals final ranges into the
store, and serves CompactTxStreamer (lightwallet protocol v0.5.0) over native gRPC, gRPC-web and
Connect on one port (HTTP/2 cleartext or TLS, and HTTP/1.1). Prints "LISTENING <url>" once the
RPC port is bound. Admin endpoints (/metrics, /healthz) are on the separate --admin port.
\`lightedge index\` runs the indexer alone.

${configHelp}
${serverConfigHelp}
  --donation-address A    LightdInfo.donationAddress           LIGHTEDGE_DONATION_ADDRESS
`;

/** Pulls the one server-only flag config.ts does not know, leaving the rest for loadOriginConfig. */
function takeDonationAddress(argv: string[]): { argv: string[]; donationAddress?: string } {
  const rest: string[] = [];
  let donationAddress = process.env.LIGHTEDGE_DONATION_ADDRESS;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--donation-address") donationAddress = argv[++i];
    else if (arg.startsWith("--donation-address=")) donationAddress = arg.slice(19);
    else rest.push(arg);
  }
  return { argv: rest, donationAddress };
}

async function run(argv: string[]): Promise<number> {
  const taken = takeDonationAddress(argv);
  const config = loadOriginConfig(taken.argv);
  const log = pino({
    level: config.logLevel,
    base: { service: "lightedge-origin", network: config.network },
  });
  const node = createNodeClient({
    url: config.node.url,
    auth: config.node.auth,
    network: config.network,
    timeoutMs: config.node.timeoutMs,
  });
  const registry = new Registry();
  const indexer = createIndexer({
    chain: node,
    info: node,
    store: openStore(config.store),
    network: config.network,
    dataDir: config.dataDir,
    rangeSize: config.rangeSize,
    sealDepth: config.sealDepth,
    concurrency: config.concurrency,
    fromHeight: config.fromHeight,
    pollMs: config.pollMs,
    log,
    metrics: createIndexMetrics(registry),
  });
  const server = await createOriginServer({
    chain: indexer.view,
    node,
    network: config.network,
    secrets: config.secrets,
    ping: config.ping,
    donationAddress: taken.donationAddress,
    log: (rpc, err) => log.error({ rpc, err }, "rpc failed"),
    observer: createServeMetrics(registry),
    listen: { host: config.listen.host, port: config.listen.port, tls: config.tls },
  });
  const admin = config.admin
    ? await startAdminServer({ ...config.admin, registry, health: { index: () => indexer.health() } })
    : undefined;
  process.stdout.write(`LISTENING ${server.url}\n`);
  log.info({ url: server.url, admin: admin?.url, tls: config.tls !== undefined }, "origin listening");
  const stop = new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  try {
    // Bootstrap (store head, tail log) then follow in the background; the RPC port already
    // answers, with Unavailable for blocks until the first block is served.
    await indexer.start();
    await stop;
  } finally {
    log.info("origin stopping");
    await server.close();
    await indexer.stop();
    await admin?.close();
    node.close();
  }
  return 0;
}

export const command: Command = {
  summary: "run the indexer and the RPC server (gRPC, gRPC-web, Connect) in one process",
  help,
  run,
};
