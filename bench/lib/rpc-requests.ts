import { create, toBinary } from "@bufbuild/protobuf";
import { encodeFrame } from "../../proto/frame.ts";
import { BlockIDSchema, BlockRangeSchema, ChainSpecSchema, EmptySchema } from "../../proto/index.ts";
import type { LoadRequest } from "./load.ts";
import { seededRandom } from "./stats.ts";

const SERVICE = "/cash.z.wallet.sdk.rpc.CompactTxStreamer";

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

/** GetBlockRange over gRPC-web (binary), as browser wallets send it; frames counted as blocks. */
export function rangeRequest(start: number, end: number): LoadRequest {
  const range = create(BlockRangeSchema, { start: { height: BigInt(start) }, end: { height: BigInt(end) } });
  return {
    method: "POST",
    path: `${SERVICE}/GetBlockRange`,
    headers: { "content-type": "application/grpc-web+proto", "x-grpc-web": "1" },
    bodyBase64: b64(encodeFrame(toBinary(BlockRangeSchema, range))),
    blocks: end - start + 1,
  };
}

/** The same heights' bytes from the static baseline (offsets from concatProjection). */
export function staticRangeRequest(offsets: Float64Array, firstHeight: number, start: number, end: number) {
  const from = offsets[start - firstHeight]!;
  const to = offsets[end + 1 - firstHeight]!;
  return {
    method: "GET",
    path: `/?offset=${from}&length=${to - from}`,
    headers: {},
    blocks: end - start + 1,
  } satisfies LoadRequest;
}

/** `count` seeded random [start, end] windows of `size` blocks within [first, last]. */
export function randomWindows(seed: number, count: number, size: number, first: number, last: number) {
  const random = seededRandom(seed);
  const span = Math.max(1, last - first + 2 - size);
  return Array.from({ length: count }, () => {
    const start = first + Math.floor(random() * span);
    return { start, end: Math.min(last, start + size - 1) };
  });
}

/** A unary RPC over Connect (binary proto), the protocol connect-web clients use by default. */
export function unaryRequest(method: string, body: Uint8Array): LoadRequest {
  return {
    method: "POST",
    path: `${SERVICE}/${method}`,
    headers: { "content-type": "application/proto", "connect-protocol-version": "1" },
    bodyBase64: b64(body),
  };
}

/** The unary RPCs timed at both tiers; height-taking ones rotate over seeded sealed heights. */
export function unaryCalls(seed: number, first: number, sealedTip: number): Record<string, LoadRequest[]> {
  const heights = randomWindows(seed, 64, 1, first, sealedTip).map((w) => w.start);
  const byHeight = (method: string) =>
    heights.map((h) =>
      unaryRequest(method, toBinary(BlockIDSchema, create(BlockIDSchema, { height: BigInt(h) }))),
    );
  const empty = toBinary(EmptySchema, create(EmptySchema));
  return {
    getLatestBlock: [unaryRequest("GetLatestBlock", toBinary(ChainSpecSchema, create(ChainSpecSchema)))],
    getLightdInfo: [unaryRequest("GetLightdInfo", empty)],
    getBlock: byHeight("GetBlock"),
    getBlockNullifiers: byHeight("GetBlockNullifiers"),
    getTreeState: byHeight("GetTreeState"),
    getLatestTreeState: [unaryRequest("GetLatestTreeState", empty)],
  };
}
