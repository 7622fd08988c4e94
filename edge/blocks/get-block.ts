import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { LightedgeError, toConnectError } from "../../proto/errors.ts";
import { FRAME_HEADER_BYTES } from "../../proto/frame.ts";
import { type BlockID, BlockIDSchema, type CompactBlock, CompactBlockSchema } from "../../proto/index.ts";
import { nullifiersOnly } from "../../proto/pools.ts";
import type { RangeReader } from "../../proto/range/reader.ts";
import { beforeDeadline, type Deadline, orDeadline } from "../../proto/wire/deadline.ts";
import { endOfStream } from "../../proto/wire/end-stream.ts";
import { heightOf, MAX_SMALL_REQUEST_BYTES } from "../../proto/wire/limits.ts";
import { contentTypeOf, type WireProtocol } from "../../proto/wire/protocol.ts";
import type { EdgeServices } from "../services.ts";
import { readAll } from "../store/read-all.ts";
import { readRequestMessage } from "../wire/request.ts";
import { errorResponse, unaryResponse } from "../wire/responses.ts";
import { createResponseSink } from "../wire/sink.ts";
import { extentOf, notServed } from "./extent.ts";
import { sealedBlockOf } from "./find-hash.ts";

export type BlockRpc = "GetBlock" | "GetBlockNullifiers";

/** Sealed blocks never change: a GET of one may be cached for a year. */
const IMMUTABLE = "public, max-age=31536000, immutable";

/** A sealed block: its range's reader and its height, and its `full` frame when already read. */
interface SealedBlock {
  ranges: RangeReader<ReadableStream<Uint8Array>>;
  height: number;
  /** Read by the hash index's lookup, which confirms a hash from the block's own frame. */
  frame?: Uint8Array;
}

/**
 * GetBlock / GetBlockNullifiers in a binary protocol. A sealed GetBlock streams its one stored
 * frame (gRPC-web sends it with its frame header; Connect unary the bare protobuf, the ranged
 * read skipping the 5 header bytes). Heights or hashes the store does not hold go to the origin.
 */
export async function serveGetBlock(
  s: EdgeServices,
  network: string,
  rpc: BlockRpc,
  req: Request,
  protocol: WireProtocol,
  deadline: Deadline,
): Promise<Response> {
  const signal = deadline.signal;
  try {
    if (protocol === "connect-stream")
      throw new LightedgeError("bad-request", rpc, `${rpc}: a unary call cannot use Connect streaming`);
    const id = await beforeDeadline(
      signal,
      readRequestMessage(req, protocol, BlockIDSchema, rpc, MAX_SMALL_REQUEST_BYTES),
    );
    const sealed = await beforeDeadline(signal, locateSealed(s, network, rpc, id));
    const cache: Record<string, string> =
      sealed !== undefined && protocol === "connect-get" ? { "cache-control": IMMUTABLE } : {};
    if (sealed?.frame !== undefined && rpc === "GetBlock")
      return unaryResponse(protocol, sealed.frame.subarray(FRAME_HEADER_BYTES), cache);
    if (sealed !== undefined && rpc === "GetBlock")
      return await beforeDeadline(signal, pipeSealed(sealed, protocol));
    const message = await beforeDeadline(signal, blockBytes(s, network, rpc, id, sealed, deadline));
    return unaryResponse(protocol, message, { "cache-control": "no-cache", ...cache });
  } catch (err) {
    return errorResponse(protocol, toConnectError(rpc, orDeadline(signal, err), s.log));
  }
}

/** The same call as a message, for JSON clients through the router. */
export async function blockMessage(
  s: EdgeServices,
  network: string,
  rpc: BlockRpc,
  id: BlockID,
  deadline: Deadline,
): Promise<CompactBlock> {
  const sealed = await beforeDeadline(deadline.signal, locateSealed(s, network, rpc, id));
  return fromBinary(CompactBlockSchema, await blockBytes(s, network, rpc, id, sealed, deadline));
}

/** The sealed block a BlockID names, with its range's reader, or undefined. */
async function locateSealed(
  s: EdgeServices,
  network: string,
  rpc: BlockRpc,
  id: BlockID,
): Promise<SealedBlock | undefined> {
  const head = await s.heads.head(network);
  const found = await sealedBlockOf(s, head, rpc, id);
  return found && { ranges: s.ranges(network, extentOf(head).rangeSize), ...found };
}

/**
 * The block's message bytes: from storage when sealed, else from the origin. GetBlockNullifiers
 * is GetBlock's block with every transaction kept, each pruned to its nullifiers (lightwalletd
 * frontend/service.go GetBlockNullifiers); the stored "nullifiers" projection is
 * GetBlockRangeNullifiers' (shielded transactions only), so one block is decoded and pruned here,
 * as the origin does.
 */
async function blockBytes(
  s: EdgeServices,
  network: string,
  rpc: BlockRpc,
  id: BlockID,
  sealed: SealedBlock | undefined,
  deadline: Deadline,
): Promise<Uint8Array> {
  if (sealed === undefined) return originBlock(s, network, rpc, id, deadline);
  const full = sealed.frame?.subarray(FRAME_HEADER_BYTES) ?? (await readFull(sealed, rpc));
  if (rpc === "GetBlock") return full;
  return toBinary(CompactBlockSchema, nullifiersOnly(fromBinary(CompactBlockSchema, full)));
}

/** The sealed block's `full` message, read by its range's metadata. */
async function readFull(sealed: SealedBlock, rpc: BlockRpc): Promise<Uint8Array> {
  const read = await sealed.ranges.readMessage("full", sealed.height);
  const full = await readAll(read.body, read.span.length, `range ${read.meta.index}`);
  if (full.length !== read.span.length)
    throw new LightedgeError(
      "corrupt",
      rpc,
      `${rpc}: range ${read.meta.index} is shorter than its metadata says`,
    );
  return full;
}

/** A block the store does not hold (the origin's tail, a hash not sealed): asked of the origin. */
async function originBlock(
  s: EdgeServices,
  network: string,
  rpc: BlockRpc,
  id: BlockID,
  deadline: Deadline,
): Promise<Uint8Array> {
  const origin = s.origin(network);
  if (origin === undefined) {
    if (id.hash.length > 0)
      throw new LightedgeError("not-found", rpc, `${rpc}: no sealed block has this hash`);
    const h = heightOf(rpc, id.height);
    throw notServed(h, h, extentOf(await s.heads.head(network)));
  }
  const request = toBinary(BlockIDSchema, create(BlockIDSchema, id));
  return origin.unary(rpc, request, deadline.signal, deadline.remainingMs());
}

/** GetBlock of a sealed block: its stored frame piped untouched (a year's cache over Connect GET). */
async function pipeSealed(sealed: SealedBlock, protocol: WireProtocol): Promise<Response> {
  const framed = protocol === "grpc-web";
  const read = framed
    ? await sealed.ranges.read("full", sealed.height, sealed.height)
    : await sealed.ranges.readMessage("full", sealed.height);
  const trailer = endOfStream(protocol);
  const sink = createResponseSink(read.span.length + trailer.length);
  void sink
    .pipe(read.body, read.span.length)
    .then(() => sink.write(trailer))
    .then(() => sink.close())
    .catch((err) => sink.abort(err).catch(() => {}));
  const headers: Record<string, string> = { "content-type": contentTypeOf[protocol] };
  if (protocol === "connect-get") headers["cache-control"] = IMMUTABLE;
  return new Response(sink.readable, { status: 200, headers });
}
