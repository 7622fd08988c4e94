import { configHelp, loadOriginConfig, serverConfigHelp } from "../../config.ts";
import { isConfigurationError } from "../../index/config-error.ts";
import { startOrigin } from "../../main/index.ts";
import type { Command } from "../command.ts";

const help = `usage: lightedge origin --node URL --network NET --store SPEC --listen HOST:PORT [options]

Runs the indexer and the RPC server in one process: follows the node, seals final ranges into the
store, and serves CompactTxStreamer (lightwallet protocol v0.5.0) over native gRPC, gRPC-web and
Connect on one port (HTTP/2 cleartext or TLS, and HTTP/1.1). Prints "LISTENING <url>" once the
RPC port is bound. Admin endpoints (/metrics, /healthz, and the status page at / and /status) are on
the separate --admin port. Tree states (GetTreeState, GetSubtreeRoots) are computed while indexing
and stored beside the sealed ranges; \`lightedge backfill-trees\` fills in history.
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
  let onSignal = () => {};
  const stop = new Promise<void>((resolve) => {
    onSignal = resolve;
  });
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const origin = await startOrigin(config, {
      donationAddress: taken.donationAddress,
      onListening: (url) => process.stdout.write(`LISTENING ${url}\n`),
    });
    try {
      // A dead indexer (configuration error) ends the process non-zero: never a server that
      // answers "not indexed yet" forever.
      const failed = origin.indexer.failed();
      await (config.exitWhenSynced
        ? Promise.race([stop, origin.indexer.synced(), failed])
        : Promise.race([stop, failed]));
    } finally {
      await origin.close();
    }
  } catch (err) {
    if (!isConfigurationError(err)) throw err;
    process.stderr.write(`lightedge origin: ${(err as Error).message}\n`);
    return 1;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  return 0;
}

export const command: Command = {
  summary: "run the indexer and the RPC server (gRPC, gRPC-web, Connect) in one process",
  help,
  run,
};
