import { parseArgs } from "node:util";
import { createDevNode, type DevNodeOptions, type Network } from "../../devnode/index.ts";
import { type Command, UsageError } from "../command.ts";

const help = `lightedge devnode --port P (--corpus DIR --network NET --from H --to H | --synthetic BLOCKS --seed S [--transparent heavy])

Runs a dev Zcash node: a JSON-RPC server speaking the zebrad subset lightedge and lightwalletd use
(getinfo, getblockchaininfo, getbestblockhash, getblockcount, getblockhash, getblock 0|1,
z_gettreestate, z_getsubtreesbyindex, getrawtransaction, sendrawtransaction, getrawmempool,
getaddresstxids, getaddressbalance, getaddressutxos), for tests, demos, benches and wallet work.
Address answers and getrawtransaction of any mined transaction come from an index of the chain's
blocks, built on the first such request (seconds per 10,000 blocks) and kept current after that.

  --port P            port to listen on (0 = any free port)
  --host H            address to bind (default 127.0.0.1)
  --corpus DIR        serve real blocks from a corpus directory (test/corpus/chain layout)
  --network NET       mainnet | testnet | regtest (corpus: which blocks; synthetic default regtest)
  --from H --to H     the consecutive corpus run to serve (e.g. mainnet 663150..663250)
  --synthetic BLOCKS  serve a generated chain of BLOCKS blocks (heights 0..BLOCKS-1)…
  --seed S            …from this seed (same seed, same chain)
  --transparent heavy  synthetic blocks also carry transparent traffic: from height 102 each block
                      spends the coinbase of 101 blocks before and earlier outputs, paying the known
                      addresses, a stable pool of 1,000 addresses (pool 0 ~14,000 transactions per
                      20,000 blocks, pool ~250 ~100) and one-time addresses (default: none; see
                      origin/devnode/transparent-traffic.ts)
  --user U --password W   require HTTP basic auth
  --cookie FILE       write a zebrad-style cookie file and require it
  --warm-trees        compute tree states from start-up on (default: from the first tree request)

Synthetic chains are NOT real chain data: v4/v5/v6 transactions with dummy proofs and signatures,
but real hashes, merkle roots, valid compact fields (canonical commitments and nullifiers, real curve
points as ephemeral keys) and tree states computed from the chain's own commitments (Sapling;
Orchard and Ironwood with the Orchard hash), on a worker thread from the first tree request on.
Header hashes chain sequentially, so the served tip grows while the node hashes a long chain at
start-up (about 1,000 blocks/s). A corpus run answers z_gettreestate also at --from − 1; see
origin/devnode/README.md for its start frontier and subtree list.

Control API on the same port (JSON, no auth): GET /control/state; POST /control/mine
{"blocks":k,"perBlock"?:n} (blocks follow the consensus rules of their height), /control/reorg
{"depth":d}, /control/mempool {"count":n}|{"hex":[...]} (stage raw transactions for the next block),
/control/stall {"ms":t,"requests"?:n}, /control/fail {"status"|"code"|"close",...,"requests"?:n},
/control/syncing {"behind":n}, /control/clear.
`;

function int(name: string, v: string | undefined): number {
  const n = Number(v);
  if (v === undefined || !Number.isSafeInteger(n) || n < 0)
    throw new UsageError(`--${name} needs a non-negative integer`);
  return n;
}

function options(argv: string[]): DevNodeOptions {
  const strings = Object.fromEntries(
    [
      "port",
      "host",
      "corpus",
      "network",
      "from",
      "to",
      "synthetic",
      "seed",
      "transparent",
      "user",
      "password",
      "cookie",
    ].map((k) => [k, { type: "string" }]),
  ) as Record<string, { type: "string" }>;
  const { values } = parseArgs({ args: argv, options: { ...strings, "warm-trees": { type: "boolean" } } });
  const v = values as Record<string, string | undefined>;
  const network = v.network as Network | undefined;
  if (network !== undefined && !["mainnet", "testnet", "regtest"].includes(network))
    throw new UsageError(`bad --network ${network}`);
  const o: DevNodeOptions = { port: int("port", v.port), host: v.host, network };
  if (v.corpus !== undefined && v.synthetic !== undefined)
    throw new UsageError("give --corpus or --synthetic, not both");
  if (v.corpus !== undefined) {
    if (!network) throw new UsageError("--corpus needs --network");
    o.corpus = { dir: v.corpus, from: int("from", v.from), to: int("to", v.to) };
    if (o.corpus.to < o.corpus.from) throw new UsageError("--to is below --from");
  } else if (v.synthetic !== undefined) {
    if (v.seed === undefined) throw new UsageError("--synthetic needs --seed");
    o.synthetic = { blocks: Math.max(1, int("synthetic", v.synthetic)), seed: v.seed };
    if (v.transparent !== undefined) {
      if (v.transparent !== "heavy") throw new UsageError(`bad --transparent ${v.transparent} (only: heavy)`);
      o.synthetic.transparent = "heavy";
    }
  } else throw new UsageError("give --corpus DIR … or --synthetic BLOCKS --seed S");
  if (v.transparent !== undefined && o.synthetic === undefined)
    throw new UsageError("--transparent goes with --synthetic");
  if ((v.user === undefined) !== (v.password === undefined))
    throw new UsageError("--user and --password go together");
  if (v.user !== undefined) o.auth = { user: v.user, password: v.password! };
  if (v.cookie !== undefined) o.cookieFile = v.cookie;
  if (values["warm-trees"] === true) o.warmTrees = true;
  return o;
}

export const command: Command = {
  summary: "run a dev Zcash node (zebrad JSON-RPC subset) over a corpus run or a synthetic chain",
  help,
  async run(argv) {
    const o = options(argv);
    const node = await createDevNode(o);
    const what = o.synthetic
      ? `SYNTHETIC chain (not real chain data): ${o.synthetic.blocks} blocks, seed "${o.synthetic.seed}", network ${node.chain.network}${o.synthetic.transparent ? `, ${o.synthetic.transparent} transparent traffic` : ""}`
      : `corpus ${node.chain.network} ${o.corpus!.from}..${o.corpus!.to} from ${o.corpus!.dir}`;
    process.stdout.write(
      `lightedge devnode listening on ${node.url}\n  ${what}\n  control API: ${node.url}control/state\n`,
    );
    const started = performance.now();
    node.ready.then(() => {
      const s = ((performance.now() - started) / 1000).toFixed(1);
      process.stdout.write(
        `  ready: tip ${node.chain.tip()} (${node.chain.hashAt(node.chain.tip())}), hashed in ${s} s\n`,
      );
    });
    await new Promise<void>((resolve) => {
      process.once("SIGINT", resolve);
      process.once("SIGTERM", resolve);
    });
    await node.close();
    return 0;
  },
};
