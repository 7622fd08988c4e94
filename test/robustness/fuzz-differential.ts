/**
 * A seeded differential fuzzer: random *valid* calls of every read RPC, sent to the edge and to the
 * origin it fronts, over the same transport, and their answers compared message for message (the
 * protobuf bytes) and code for code. The origin is the reference the rest of the suite holds to
 * lightwalletd; the edge answers the same reads from sealed objects, its isolate caches and its own
 * fast paths, so any difference is a silent wrong answer on one side. Error messages may differ in
 * wording; their codes may not. Left out: calls whose answers depend on time or change state
 * (mempool, SendTransaction, Ping) and GetLightdInfo (each server names itself).
 */
import { type DescMessage, type MessageShape, toBinary } from "@bufbuild/protobuf";
import { type Client, Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import type { Network } from "../../origin/config.ts";
import { scriptAddress } from "../../origin/devnode/address.ts";
import { CompactTxStreamer } from "../../proto/index.ts";
import { createRng, forEachCase } from "./fuzz-requests.ts";

type Rng = ReturnType<typeof createRng>;
type Streamer = Client<typeof CompactTxStreamer>;

/** What the calls are drawn from: the served chain, read once from the reference. */
export interface ChainFacts {
  /** The first served height (a corpus run starts past genesis). */
  first: number;
  tip: number;
  /** Block hashes by height, wire order. */
  hashes: Uint8Array[];
  /** Every transaction: its txid (wire order), height and index in its block. */
  txs: { txid: Uint8Array; height: number; index: number }[];
  /** Transparent addresses paid in the chain. */
  addresses: string[];
}

/** The chain the reference serves from `first`: every block (full projection), txids, t-addresses. */
export async function readChainFacts(reference: Streamer, network: Network, first = 0): Promise<ChainFacts> {
  const tip = Number((await reference.getLatestBlock({})).height);
  const hashes: Uint8Array[] = [];
  const txs: ChainFacts["txs"] = [];
  const addresses = new Set<string>();
  for await (const b of reference.getBlockRange({
    start: { height: BigInt(first) },
    end: { height: BigInt(tip) },
    poolTypes: [1, 2, 3, 4],
  })) {
    hashes[Number(b.height)] = b.hash;
    for (const tx of b.vtx) {
      txs.push({ txid: tx.txid, height: Number(b.height), index: Number(tx.index) });
      for (const out of tx.vout) {
        const address = scriptAddress(out.scriptPubKey, network);
        if (address !== undefined) addresses.add(address);
      }
    }
  }
  return { first, tip, hashes, txs, addresses: [...addresses].sort() };
}

export interface DifferentialCall {
  method: string;
  request: Record<string, unknown>;
}

const reversed = (b: Uint8Array) => Uint8Array.from(b).reverse();

/** One random valid call, heights biased to the ends of the chain and just past its tip. */
export function randomCall(rng: Rng, chain: ChainFacts): DifferentialCall {
  const known = () => chain.first + rng.int(chain.tip - chain.first + 1);
  const height = () =>
    BigInt(
      rng.pick([
        0,
        Math.max(0, chain.first - 1),
        chain.first,
        chain.first + 1,
        known(),
        known(),
        chain.tip,
        chain.tip + 1,
        chain.tip + 3,
      ]),
    );
  const blockId = () => {
    if (!rng.chance(0.3)) return { height: height() };
    const hash = chain.hashes[known()]!;
    return { hash: rng.chance(0.5) ? hash : reversed(hash) };
  };
  const pools = () =>
    rng.chance(0.5) ? [] : [1, 2, 3, 4].filter(() => rng.chance(0.5)).concat(rng.chance(0.1) ? [1] : []);
  const range = () => ({ start: { height: height() }, end: { height: height() }, poolTypes: pools() });
  const addresses = () =>
    Array.from({ length: 1 + rng.int(3) }, () =>
      chain.addresses.length > 0 && rng.chance(0.9)
        ? rng.pick(chain.addresses)
        : "tmJ1xYxP8XNTtCoDgvdmQPSrxh5qZJgy65Z",
    );
  const method = rng.pick([
    "GetLatestBlock",
    "GetBlock",
    "GetBlock",
    "GetBlockNullifiers",
    "GetBlockRange",
    "GetBlockRange",
    "GetBlockRange",
    "GetBlockRangeNullifiers",
    "GetTreeState",
    "GetTreeState",
    "GetLatestTreeState",
    "GetSubtreeRoots",
    "GetTransaction",
    "GetTransaction",
    "GetTaddressTxids",
    "GetTaddressTransactions",
    "GetTaddressBalance",
    "GetAddressUtxos",
    "GetAddressUtxosStream",
  ]);
  switch (method) {
    case "GetLatestBlock":
    case "GetLatestTreeState":
      return { method, request: {} };
    case "GetBlock":
    case "GetBlockNullifiers":
    case "GetTreeState":
      return { method, request: blockId() };
    case "GetBlockRange":
    case "GetBlockRangeNullifiers":
      return { method, request: range() };
    case "GetSubtreeRoots":
      return {
        method,
        request: { startIndex: rng.int(3), shieldedProtocol: rng.int(3), maxEntries: rng.pick([0, 1, 2, 5]) },
      };
    case "GetTransaction": {
      const tx = rng.pick(chain.txs);
      if (rng.chance(0.7)) return { method, request: { hash: tx.txid } };
      return { method, request: { block: { height: BigInt(tx.height) }, index: BigInt(tx.index) } };
    }
    case "GetTaddressTxids":
    case "GetTaddressTransactions":
      return { method, request: { address: addresses()[0], range: range() } };
    case "GetTaddressBalance":
      return { method, request: { addresses: addresses() } };
    default:
      return {
        method,
        request: {
          addresses: addresses(),
          startHeight: height(),
          maxEntries: rng.pick([0, 1, 3]),
        },
      };
  }
}

/** An answer reduced to what must agree: the messages' bytes in order, then the code. */
export interface Outcome {
  messages: string[];
  code: string;
}

const lower = (name: string) => name[0]!.toLowerCase() + name.slice(1);

/** Calls `call` through `client` and reduces the answer. */
export async function outcomeOf(client: Streamer, call: DifferentialCall): Promise<Outcome> {
  const method = CompactTxStreamer.method[lower(call.method) as keyof typeof CompactTxStreamer.method];
  const encode = (m: unknown) =>
    Buffer.from(toBinary(method.output as DescMessage, m as MessageShape<DescMessage>)).toString("hex");
  const messages: string[] = [];
  const fn = (client as unknown as Record<string, (req: unknown) => unknown>)[lower(call.method)]!;
  try {
    if (method.methodKind === "server_streaming") {
      for await (const m of fn(call.request) as AsyncIterable<unknown>) messages.push(encode(m));
    } else {
      messages.push(encode(await (fn(call.request) as Promise<unknown>)));
    }
    return { messages, code: "ok" };
  } catch (err) {
    return { messages, code: Code[ConnectError.from(err).code] ?? "unknown" };
  }
}

export interface DifferentialFinding {
  call: DifferentialCall;
  edge: Outcome;
  reference: Outcome;
}

/** Runs `cases` seeded calls against both; every disagreement is a finding. */
export async function runDifferentialFuzz(o: {
  edge: Transport;
  reference: Transport;
  chain: ChainFacts;
  cases: number;
  seed: number;
  concurrency?: number;
}): Promise<{ cases: number; findings: DifferentialFinding[] }> {
  const edge = createClient(CompactTxStreamer, o.edge);
  const reference = createClient(CompactTxStreamer, o.reference);
  const rng = createRng(o.seed);
  const findings: DifferentialFinding[] = [];
  await forEachCase(o.cases, o.concurrency ?? 4, async () => {
    const call = randomCall(rng, o.chain);
    const [a, b] = await Promise.all([outcomeOf(edge, call), outcomeOf(reference, call)]);
    if (
      a.code !== b.code ||
      a.messages.length !== b.messages.length ||
      a.messages.some((m, i) => m !== b.messages[i])
    )
      findings.push({ call, edge: a, reference: b });
  });
  return { cases: o.cases, findings };
}

/** A finding as one line: the call, both codes and message counts, and the first differing message. */
export function describeDifferentialFinding(f: DifferentialFinding): string {
  const request = JSON.stringify(f.call.request, (_k, v) =>
    typeof v === "bigint" ? v.toString() : v instanceof Uint8Array ? Buffer.from(v).toString("hex") : v,
  );
  const at = f.edge.messages.findIndex((m, i) => m !== f.reference.messages[i]);
  const first =
    at < 0
      ? ""
      : ` first difference at message ${at}: edge ${f.edge.messages[at]?.slice(0, 80)} vs ${f.reference.messages[at]?.slice(0, 80)}`;
  return `${f.call.method} ${request}: edge ${f.edge.code} (${f.edge.messages.length} messages), origin ${f.reference.code} (${f.reference.messages.length})${first}`;
}
