import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Client, createClient } from "@connectrpc/connect";
import { createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import type { Network } from "../../origin/config.ts";
import { type StartedAll, startAll } from "../../origin/main/start-all.ts";
import { CompactTxStreamer } from "../../proto/index.ts";
import { chainDir, corpusIndex } from "./chain.ts";

/**
 * The system a wallet test runs against, stood up as `npm start` does (`startAll`): a dev node
 * over a real corpus run or a synthetic chain, the origin indexing it into a directory store with
 * small ranges (so several seal and a wallet batch crosses the sealed/tail seam), and the edge in
 * workerd (`wrangler dev`) reading that store. One system serves both transports: the origin's
 * native gRPC (mobile wallets) and the edge's gRPC-web (browser wallets).
 */

export type Transport = "grpc" | "grpc-web";

/** Where a wallet connects for a transport: the origin for native gRPC, the edge for gRPC-web. */
export interface WalletServer {
  name: "origin" | "edge";
  url: string;
  transport: Transport;
}

export type WalletChain =
  | { corpus: { network: "mainnet" | "testnet"; from: number; to: number } }
  | { synthetic: { blocks: number; seed: string } };

export interface WalletSystemOptions {
  chain: WalletChain;
  rangeSize: number;
  /** Mainnet and testnet never seal shallower than 100 (origin/config.ts). */
  sealDepth: number;
  /** Indexing starts here (rounded up to a range boundary by the origin); default the chain's base. */
  fromHeight?: number;
}

export interface WalletSystem {
  all: StartedAll;
  network: Network;
  /** Both transports, origin first. */
  servers: [WalletServer, WalletServer];
  /** Connect clients for RPCs a test makes itself (SendTransaction, mempool, tree states). */
  client(server: WalletServer): Client<typeof CompactTxStreamer>;
  /** The dev node's control API (`origin/devnode/control.ts`); throws on a non-2xx answer. */
  control<T = Record<string, unknown>>(path: string, body?: Record<string, unknown>): Promise<T>;
  /** The dev node's served tip. */
  nodeTip(): Promise<{ height: number; hash: string }>;
  /**
   * Resolves once both servers answer the node's tip (height and hash) from GetLatestBlock and
   * the origin has computed the tree states through it: what a wallet needs to sync to the tip.
   */
  settle(timeoutMs?: number): Promise<number>;
  close(): Promise<void>;
}

export async function startWalletSystem(o: WalletSystemOptions): Promise<WalletSystem> {
  const data = mkdtempSync(join(tmpdir(), "lightedge-wallet-"));
  const network: Network = "corpus" in o.chain ? o.chain.corpus.network : "regtest";
  const node =
    "corpus" in o.chain
      ? { corpus: { dir: chainDir, from: o.chain.corpus.from, to: o.chain.corpus.to }, network }
      : { synthetic: o.chain.synthetic, network };
  let all: StartedAll;
  try {
    all = await startAll({
      dataDir: data,
      dev: { node },
      edgePort: 0,
      originPort: 0,
      adminPort: "off",
      rangeSize: o.rangeSize,
      sealDepth: o.sealDepth,
      fromHeight: o.fromHeight ?? ("corpus" in o.chain ? o.chain.corpus.from : 0),
      originArgs: ["--log-level", "error", "--poll-ms", "100"],
      quiet: true,
      env: {},
    });
  } catch (err) {
    rmSync(data, { recursive: true, force: true });
    throw err;
  }
  const devUrl = all.devnode!.url;
  const servers: [WalletServer, WalletServer] = [
    { name: "origin", url: all.originUrl, transport: "grpc" },
    { name: "edge", url: all.edgeUrl, transport: "grpc-web" },
  ];
  const clients = new Map<string, Client<typeof CompactTxStreamer>>();
  const client = (s: WalletServer) => {
    let c = clients.get(s.name);
    if (!c) {
      const transport =
        s.transport === "grpc"
          ? createGrpcTransport({ baseUrl: s.url })
          : createGrpcWebTransport({ baseUrl: s.url, httpVersion: "1.1" });
      c = createClient(CompactTxStreamer, transport);
      clients.set(s.name, c);
    }
    return c;
  };
  const control = async <T>(path: string, body?: Record<string, unknown>): Promise<T> => {
    const res = await fetch(`${devUrl}control/${path}`, {
      method: body === undefined ? "GET" : "POST",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`dev node control/${path}: HTTP ${res.status} ${text.slice(0, 200)}`);
    return JSON.parse(text) as T;
  };
  const nodeTip = async () => {
    const s = await control<{ servedTip: number }>("state");
    return { height: s.servedTip, hash: all.devnode!.chain.hashAt(s.servedTip) };
  };
  const settle = async (timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    let last = "";
    for (;;) {
      const tip = await nodeTip();
      try {
        await withTimeout(all.origin.treeStates.settled(tip.height), 2_000);
        const answers = await Promise.all(servers.map((s) => client(s).getLatestBlock({})));
        const wire = Buffer.from(tip.hash, "hex").reverse();
        const agree = answers.every(
          (b) => Number(b.height) === tip.height && Buffer.from(b.hash).equals(wire),
        );
        if (agree) {
          // Tree states must answer at the tip through both servers (the wallet asks for them).
          await Promise.all(servers.map((s) => client(s).getTreeState({ height: BigInt(tip.height) })));
          return tip.height;
        }
        last = `node tip ${tip.height}, servers ${answers.map((b) => b.height).join("/")}`;
      } catch (err) {
        last = err instanceof Error ? err.message : String(err);
      }
      if (Date.now() > deadline) throw new Error(`system did not settle within ${timeoutMs} ms: ${last}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  return {
    all,
    network,
    servers,
    client,
    control,
    nodeTip,
    settle,
    close: async () => {
      try {
        await all.close();
      } finally {
        rmSync(data, { recursive: true, force: true });
      }
    },
  };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}

export type Pool = "sapling" | "orchard";

/**
 * The node's real note-commitment tree roots after block `height`, where the corpus has them, in
 * display (RPC) byte order: zebra's final-root vectors and getblock's `finalsaplingroot` /
 * `finalorchardroot` (index.json), real zebrad `z_gettreestate` answers, and the header's
 * `hashFinalSaplingRoot` of v4 blocks from Sapling activation until Heartwood, which replaced that
 * header field with the chain history root (ZIP 221).
 */
export function realRoots(network: "mainnet" | "testnet", height: number): Partial<Record<Pool, string>> {
  const out: Partial<Record<Pool, string>> = {};
  const roots = JSON.parse(
    readFileSync(join(chainDir, "treestate/zebra-final-roots.json"), "utf8"),
  ) as Record<string, Record<string, Record<string, string>>>;
  for (const pool of ["sapling", "orchard"] as const) {
    const v = roots[network]?.[pool]?.[String(height)];
    if (v) out[pool] = v;
  }
  const block = corpusIndex().blocks.find((b) => b.network === network && b.height === height) as
    | (ReturnType<typeof corpusIndex>["blocks"][number] & {
        finalSaplingRoot?: string;
        finalOrchardRoot?: string;
        blockCommitments?: string;
        headerVersion?: number;
      })
    | undefined;
  if (block?.finalSaplingRoot) out.sapling ??= block.finalSaplingRoot;
  if (block?.finalOrchardRoot) out.orchard ??= block.finalOrchardRoot;
  const [sapling, heartwood] = ACTIVATIONS[network];
  if (block?.blockCommitments && block.headerVersion === 4 && height >= sapling && height < heartwood)
    out.sapling ??= block.blockCommitments;
  const zebrad = zebradTreeState(network, height);
  for (const pool of ["sapling", "orchard"] as const) {
    const r = zebrad?.[pool]?.commitments?.finalRoot;
    if (r) out[pool] ??= r;
  }
  return out;
}

/** Sapling and Heartwood activation heights (zebra's constants, chain/README.md). */
const ACTIVATIONS: Record<"mainnet" | "testnet", [number, number]> = {
  mainnet: [419_200, 903_000],
  testnet: [280_000, 903_800],
};

type ZebradTreeState = Partial<Record<Pool, { commitments?: { finalRoot?: string; finalState?: string } }>>;

/** A real zebrad `z_gettreestate` answer from the corpus (rpc/zebrad-mainnet), when there is one. */
export function zebradTreeState(network: string, height: number): ZebradTreeState | undefined {
  if (network !== "mainnet") return undefined;
  try {
    const file = join(chainDir, `rpc/zebrad-mainnet/z_gettreestate-${height}.json`);
    return (JSON.parse(readFileSync(file, "utf8")) as { result: ZebradTreeState }).result;
  } catch {
    return undefined;
  }
}

/**
 * True when the corpus holds the node's real tree state after `height` — a zebrad answer, an
 * SDK checkpoint at exactly that height, or a height before Sapling activation (empty trees). Only
 * then can a dev node's trees after it be the chain's real ones, and real roots be asserted.
 */
export function hasRealTreeStateAt(network: "mainnet" | "testnet", height: number): boolean {
  if (height < ACTIVATIONS[network][0]) return true;
  if (zebradTreeState(network, height)) return true;
  try {
    readFileSync(join(chainDir, `treestate/${network}/${height}.json`));
    return true;
  } catch {
    return false;
  }
}

/** Polls `check` every 100 ms until it holds; throws after `ms`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  ms: number,
  what = "condition",
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
