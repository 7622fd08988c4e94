import { fromBinary, toBinary } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { ConnectError } from "@connectrpc/connect";
import {
  codeFromHttpStatus,
  endStreamFromJson,
  errorFromJsonBytes,
} from "@connectrpc/connect/protocol-connect";
import { encodeFrame, FLAG_CONNECT_END_STREAM } from "../../proto/frame.ts";
import {
  BlockIDSchema,
  BlockRangeSchema,
  type CompactBlock,
  CompactBlockSchema,
  type CompactTxStreamer,
} from "../../proto/index.ts";
import { type RangeRpc, serveBlockRange } from "../blocks/block-range.ts";
import { type BlockRpc, serveGetBlock } from "../blocks/get-block.ts";
import type { EdgeServices } from "../services.ts";
import { readFrames } from "../wire/frame-reader.ts";
import type { Deadline } from "./deadline.ts";

type Impl = ServiceImpl<typeof CompactTxStreamer>;

/**
 * The block RPCs for JSON clients: the fast path's binary answer, decoded per message so the
 * router can write JSON. JSON costs a decode + encode per block by nature; binary clients never
 * come here.
 */
export function jsonBlockMethods(s: EdgeServices, network: string): Partial<Impl> {
  const range = (rpc: RangeRpc) =>
    async function* (req: Parameters<Impl["getBlockRange"]>[0], ctx: HandlerContext) {
      const body = encodeFrame(toBinary(BlockRangeSchema, req));
      const res = await serveBlockRange(
        s,
        network,
        rpc,
        inner("application/connect+proto", body, ctx.signal),
        "connect-stream",
        deadlineOf(ctx),
      );
      yield* decodeStream(res);
    };
  const unary = (rpc: BlockRpc) => async (req: Parameters<Impl["getBlock"]>[0], ctx: HandlerContext) => {
    const res = await serveGetBlock(
      s,
      network,
      rpc,
      inner("application/proto", toBinary(BlockIDSchema, req), ctx.signal),
      "connect-unary",
      deadlineOf(ctx),
    );
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (res.status !== 200)
      throw errorFromJsonBytes(
        bytes,
        undefined,
        new ConnectError(`${rpc}: failed`, codeFromHttpStatus(res.status)),
      );
    return fromBinary(CompactBlockSchema, bytes);
  };
  return {
    getBlockRange: range("GetBlockRange"),
    getBlockRangeNullifiers: range("GetBlockRangeNullifiers"),
    getBlock: unary("GetBlock"),
    getBlockNullifiers: unary("GetBlockNullifiers"),
  };
}

function inner(contentType: string, body: Uint8Array, signal: AbortSignal): Request {
  return new Request("https://edge.internal/", {
    method: "POST",
    headers: { "content-type": contentType },
    body: body as Uint8Array<ArrayBuffer>,
    signal,
  });
}

async function* decodeStream(res: Response): AsyncGenerator<CompactBlock> {
  for await (const frame of readFrames(res.body!, 64 * 1024 * 1024)) {
    if (frame.flag === FLAG_CONNECT_END_STREAM) {
      const end = endStreamFromJson(frame.message);
      if (end.error !== undefined) throw end.error;
      return;
    }
    yield fromBinary(CompactBlockSchema, frame.message);
  }
}

/** The router's own deadline (its context signal aborts with DeadlineExceeded) as the fast path's. */
function deadlineOf(ctx: HandlerContext): Deadline {
  return { signal: ctx.signal, remainingMs: () => ctx.timeoutMs(), dispose: () => {} };
}
