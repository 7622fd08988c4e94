import { type DescMessage, type MessageShape, toBinary } from "@bufbuild/protobuf";
import { toConnectError } from "../../proto/errors.ts";
import {
  BlockIDSchema,
  ChainSpecSchema,
  EmptySchema,
  LightdInfoSchema,
  RawTransactionSchema,
  TreeStateSchema,
  TxFilterSchema,
} from "../../proto/index.ts";
import { Lru } from "../../proto/lru.ts";
import { beforeDeadline, type Deadline, orDeadline } from "../../proto/wire/deadline.ts";
import { MAX_SMALL_REQUEST_BYTES } from "../../proto/wire/limits.ts";
import type { WireProtocol } from "../../proto/wire/protocol.ts";
import { decodeRequest } from "../../proto/wire/request.ts";
import { noteTreeStateAsked } from "../blocks/next-batch.ts";
import { storedTransaction } from "../history/get-transaction.ts";
import type { EdgeServices } from "../services.ts";
import { readRequestBytes } from "../wire/request.ts";
import { errorResponse, unaryResponse } from "../wire/responses.ts";
import type { ChainInfo } from "./chain-info.ts";
import { sealedTreeStateAt } from "./tree-states.ts";

/**
 * The unary calls a wallet makes most — GetLatestBlock and GetLightdInfo (answered from the
 * isolate's cached head and origin tip), GetTreeState by a sealed height (one ranged read, none
 * when the answer is in the isolate's cache) and GetTransaction by the txid of a sealed
 * transaction (the isolate's transaction index shards, one ranged read: a restoring wallet asks
 * for every transaction it finds) — answered without the Connect router in the binary protocols: the router's per-call machinery (handler context, header and envelope parsing,
 * serialization options) costs more than these answers. Their bytes are the router's: same
 * messages, same envelope, same end-of-stream bytes (proto/wire/end-stream.ts). Whatever the fast path
 * does not hold (a tree state by hash, above the sealed tip, not backfilled) goes to the router
 * with the body already read.
 */
export const FAST_UNARY: ReadonlySet<string> = new Set([
  "GetLatestBlock",
  "GetLightdInfo",
  "GetTreeState",
  "GetTransaction",
]);

/** Protocols a unary call can use; Connect streaming is refused by the router for unary methods. */
export function fastUnaryProtocol(protocol: WireProtocol): boolean {
  return protocol !== "connect-stream";
}

/**
 * Encoded tree states kept in the isolate (immutable once stored: a sealed height's tree state
 * never changes). ≈ 1–3 kB each with three pools' frontiers: 512 entries ≈ 1.5 MB.
 */
export const TREE_STATE_CACHE_ENTRIES = 512;

export interface FastUnaryCounters {
  treeStateHits: number;
  treeStateMisses: number;
}

interface FastState {
  treeStates: Lru<string, Uint8Array>;
  counters: FastUnaryCounters;
}

const states = new WeakMap<EdgeServices, FastState>();

function stateOf(s: EdgeServices): FastState {
  let st = states.get(s);
  if (st === undefined) {
    st = {
      treeStates: new Lru({ maxEntries: TREE_STATE_CACHE_ENTRIES }),
      counters: { treeStateHits: 0, treeStateMisses: 0 },
    };
    states.set(s, st);
  }
  return st;
}

/** This isolate's tree-state cache hits and misses (for the bench's hit ratio). */
export function fastUnaryCounters(s: EdgeServices): FastUnaryCounters {
  return stateOf(s).counters;
}

/**
 * Serves one of FAST_UNARY in a binary protocol (not Connect streaming). `toRouter` gets the
 * request rebuilt with the bytes already read when the fast path does not hold the answer.
 */
export async function serveFastUnary(
  s: EdgeServices,
  info: ChainInfo,
  network: string,
  method: string,
  req: Request,
  protocol: WireProtocol,
  deadline: Deadline,
  toRouter: (req: Request) => Promise<Response>,
): Promise<Response> {
  const signal = deadline.signal;
  try {
    const bytes = await beforeDeadline(
      signal,
      readRequestBytes(req, protocol, method, MAX_SMALL_REQUEST_BYTES),
    );
    const decode = <D extends DescMessage>(schema: D): MessageShape<D> =>
      decodeRequest(schema, bytes, method, protocol);
    let message: Uint8Array | undefined;
    if (method === "GetLatestBlock") {
      decode(ChainSpecSchema);
      message = toBinary(BlockIDSchema, await beforeDeadline(signal, info.latestBlock(network)));
    } else if (method === "GetLightdInfo") {
      decode(EmptySchema);
      message = toBinary(LightdInfoSchema, await beforeDeadline(signal, info.lightdInfo(network)));
    } else if (method === "GetTransaction") {
      // By txid only: every other form (and every refusal) is worded by the router's handler.
      const filter = decode(TxFilterSchema);
      if (filter.hash.length === 32) {
        const tx = await beforeDeadline(signal, storedTransaction(s, network, filter));
        if (tx !== undefined) message = toBinary(RawTransactionSchema, tx);
      }
    } else {
      const id = decode(BlockIDSchema);
      if (id.hash.length === 0) message = await beforeDeadline(signal, treeStateBytes(s, network, id.height));
    }
    if (message === undefined) {
      const again =
        protocol === "connect-get"
          ? req
          : new Request(req.url, {
              method: req.method,
              headers: req.headers,
              body: bytes as Uint8Array<ArrayBuffer>,
            });
      return await toRouter(again);
    }
    return answer(s, message, protocol);
  } catch (err) {
    return errorResponse(protocol, toConnectError(method, orDeadline(signal, err), s.log));
  } finally {
    deadline.dispose();
  }
}

/** The encoded TreeState at a sealed height, from the isolate's cache or storage; else undefined. */
async function treeStateBytes(
  s: EdgeServices,
  network: string,
  height: bigint,
): Promise<Uint8Array | undefined> {
  const st = stateOf(s);
  const key = `${network}/${height}`;
  const hit = st.treeStates.get(key);
  if (hit !== undefined) {
    st.counters.treeStateHits++;
    // Asked all the same: a batch sequence that warmed it is a wallet's (blocks/next-batch.ts).
    noteTreeStateAsked(s.treeStates(network), Number(height));
    return hit;
  }
  // Heights past 2^53 are no sealed height: the router answers them (above the tip).
  if (height > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  const head = await s.heads.head(network);
  const state = await sealedTreeStateAt(s, network, head, Number(height));
  if (state === undefined) return undefined;
  st.counters.treeStateMisses++;
  const bytes = toBinary(TreeStateSchema, state);
  st.treeStates.set(key, bytes);
  return bytes;
}

/** A unary answer in the request's protocol, as the Connect router writes it. */
function answer(s: EdgeServices, message: Uint8Array, protocol: WireProtocol): Response {
  // As dispatch.ts does for the router's GET answers: cacheable for as long as the head is.
  const headers: Record<string, string> =
    protocol === "connect-get"
      ? { "cache-control": `public, max-age=${Math.max(1, Math.floor(s.config.headCacheMs / 1000))}` }
      : {};
  return unaryResponse(protocol, message, headers);
}
