import { fromBinary } from "@bufbuild/protobuf";
import { FRAME_HEADER_BYTES } from "../../proto/frame.ts";
import { CompactBlockSchema } from "../../proto/index.ts";
import type { ChainBlocks } from "../index/index.ts";
import type { ProducerBlock } from "./producer.ts";

/**
 * Served blocks `from..to` as the producer reads them (to replay a tail the indexer restored from
 * its data dir before the producer started): the "full" frame's protobuf and its time.
 */
export async function producerBlocksFrom(
  view: ChainBlocks,
  from: number,
  to: number,
  signal?: AbortSignal,
): Promise<ProducerBlock[]> {
  const out: ProducerBlock[] = [];
  if (from > to) return out;
  for await (const b of view.blocks("full", from, to, { signal })) {
    const full = b.frame.subarray(FRAME_HEADER_BYTES);
    const block = fromBinary(CompactBlockSchema, full);
    out.push({
      height: b.height,
      wireHash: b.wireHash,
      time: block.time,
      messages: { full },
    });
  }
  return out;
}
