import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { LightedgeError } from "../../proto/errors.ts";
import { createAddressIndex, type DevAddressIndex } from "./address-index.ts";
import { createBlockCache } from "./blocks-rpc.ts";
import { createDevChain } from "./chain.ts";
import type { Pool } from "./commitments.ts";
import { type CorpusRun, loadCorpusRun } from "./corpus.ts";
import { createFaults } from "./fault-injection.ts";
import { type CorpusServing, type NodeState, RecentTxids, rememberTxids } from "./node-state.ts";
import { createHandler } from "./server.ts";
import type { StartPlan } from "./start-frontier.ts";
import type { TransparentMode } from "./transparent-traffic.ts";
import { createTreeStates } from "./tree-host.ts";
import type { DevChain, Network } from "./types.ts";

export { knownScripts, scriptAddress } from "./address.ts";
export { POOL_SIZE, poolAddress, type TransparentMode } from "./transparent-traffic.ts";
export type { DevBlock, DevChain, DevTreeSizes, Network } from "./types.ts";

export interface DevNodeOptions {
  port?: number;
  host?: string;
  network?: Network;
  /**
   * Synthetic chain of this many blocks (heights 0..blocks-1)… With `transparent: "heavy"` its
   * blocks also carry transparent traffic spending real earlier outputs (transparent-traffic.ts);
   * without it the chain is the default one, byte for byte.
   */
  synthetic?: { blocks: number; seed: string; transparent?: TransparentMode };
  /** …or a consecutive corpus run. */
  corpus?: { dir: string; from: number; to: number };
  /** Require HTTP basic auth with these credentials… */
  auth?: { user: string; password: string };
  /** …or write a zebrad-style cookie file (`__cookie__:<random>`) and require it. */
  cookieFile?: string;
  /**
   * Compute tree states through the tip once the chain is hashed (default: the tree worker builds its
   * hash tables at start and computes heights as they are asked for). Wallet harnesses set it so the
   * first GetTreeState at the tip of a long chain is quick.
   */
  warmTrees?: boolean;
}

export interface DevNode {
  url: string;
  port: number;
  chain: DevChain;
  /**
   * The address and transaction index (built on the first address or unknown-txid request;
   * `addresses.ready(chain.tip())` builds it ahead, e.g. before a bench measures).
   */
  addresses: DevAddressIndex;
  /**
   * Resolves once every header hash is computed (the served tip grows until then) and the tree
   * worker's hash tables are built, so a first z_gettreestate answers within any caller's deadline.
   */
  ready: Promise<void>;
  close(): Promise<void>;
}

/** Starts a dev node: a zebrad-subset JSON-RPC server over a synthetic or corpus chain. */
export async function createDevNode(o: DevNodeOptions): Promise<DevNode> {
  const network = o.network ?? (o.corpus ? "mainnet" : "regtest");
  const fixed = o.corpus ? loadCorpusRun(o.corpus.dir, network, o.corpus.from, o.corpus.to) : undefined;
  const seed = o.synthetic?.seed ?? "corpus";
  const transparent = o.synthetic?.transparent;
  if (transparent !== undefined && transparent !== "heavy")
    throw new LightedgeError(
      "bad-request",
      "devnode.options",
      `devnode: unknown transparent mode ${transparent}`,
    );
  const chain = createDevChain({ network, seed, blocks: o.synthetic?.blocks, fixed, transparent });
  const empty = (pool: Pool): StartPlan => ({ pool, kind: "empty", size: 0 });
  const trees = createTreeStates({
    chain,
    seed,
    starts: fixed?.starts ?? {
      sapling: empty("sapling"),
      orchard: empty("orchard"),
      ironwood: empty("ironwood"),
    },
    fixed,
  });
  const state: NodeState = {
    chain,
    blocks: createBlockCache(),
    addresses: createAddressIndex(chain),
    mempool: new Map(),
    txHeights: new RecentTxids(),
    calls: new Map(),
    behind: 0,
    tip: () => Math.min(chain.tip(), chain.hashed()),
    trees,
    corpus: fixed ? corpusServing(fixed) : undefined,
  };
  if (fixed) for (let h = fixed.from; h <= fixed.to; h++) rememberTxids(state, h, fixed.get(h).txids);
  const faults = createFaults();
  let authHeader: string | undefined;
  if (o.auth) authHeader = basic(`${o.auth.user}:${o.auth.password}`);
  if (o.cookieFile) {
    const cookie = `__cookie__:${randomBytes(24).toString("hex")}`;
    writeFileSync(o.cookieFile, cookie, { mode: 0o600 });
    authHeader = basic(cookie);
  }
  const server = http.createServer(
    { keepAliveTimeout: 60_000 },
    createHandler(state, faults, () => authHeader),
  );
  await new Promise<void>((resolve) => server.listen(o.port ?? 0, o.host ?? "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  let stopped = false;
  const hashed = new Promise<void>((resolve) => {
    // Hash in slices so the server keeps answering while a long chain is prepared.
    const step = () => (stopped || chain.advance(50) ? resolve() : setImmediate(step));
    step();
  });
  const ready = Promise.all([hashed, trees.warm]).then(() => undefined);
  if (o.warmTrees)
    void hashed.then(() => (stopped ? undefined : trees.stateAt(chain.tip()).catch(() => undefined)));
  return {
    url: `http://${o.host ?? "127.0.0.1"}:${port}/`,
    port,
    chain,
    addresses: state.addresses,
    ready,
    close: () =>
      new Promise<void>((resolve) => {
        stopped = true;
        server.closeAllConnections();
        server.close(() => resolve());
      }).then(() => trees.close()),
  };
}

function basic(credentials: string): string {
  return `Basic ${Buffer.from(credentials).toString("base64")}`;
}

/** Start frontier's block (from − 1): hash from the run's first block; time real where the corpus has it. */
function corpusServing(run: CorpusRun): CorpusServing {
  const first = run.get(run.from);
  const real = run.trees.states.find((s) => s.height === run.from - 1);
  const zebrad = new Map<number, Record<string, unknown>>();
  for (const s of run.trees.states) if (s.zebrad) zebrad.set(s.height, s.zebrad);
  return {
    zebrad,
    startHash: first.prevDisplayHash,
    // Not in the corpus unless a tree state is: one target spacing (75 s) before the first block.
    startTime: real?.time ?? first.time - 75,
    startSizes: {
      sapling: run.starts.sapling.size,
      orchard: run.starts.orchard.size,
      ironwood: run.starts.ironwood.size,
    },
    subtrees: run.trees.subtrees,
  };
}
