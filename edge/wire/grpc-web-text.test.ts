import { create, toBinary } from "@bufbuild/protobuf";
import { base64Decode, base64Encode } from "@bufbuild/protobuf/wire";
import { beforeAll, describe, expect, it } from "vitest";
import { decodeFrames, encodeFrame, FLAG_GRPC_WEB_TRAILER } from "../../proto/frame.ts";
import { BlockRangeSchema } from "../../proto/index.ts";
import { b64, fetchWith, fixture, seedBucket, testEnv } from "../testing/fixture.ts";

describe.skipIf(fixture === null)("gRPC-web-text", () => {
  beforeAll(seedBucket);

  it("takes a base64 request and streams base64 frames ending in a trailer", async () => {
    const req = create(BlockRangeSchema, { start: { height: 663150n }, end: { height: 663172n } });
    const res = await fetchWith(testEnv("none"))(
      "https://edge.test/cash.z.wallet.sdk.rpc.CompactTxStreamer/GetBlockRange",
      {
        method: "POST",
        headers: { "content-type": "application/grpc-web-text", "x-grpc-web": "1" },
        body: base64Encode(encodeFrame(toBinary(BlockRangeSchema, req))),
      },
    );
    expect(res.headers.get("content-type")).toMatch(/^application\/grpc-web-text/);
    const frames = [...decodeFrames(base64Decode(new TextDecoder().decode(await res.arrayBuffer())))];
    const blocks = fixture!.seed.blocks.mainnet!.filter((b) => b.height >= 663150 && b.height <= 663172);
    expect(frames.slice(0, -1).map((f) => f.message)).toEqual(blocks.map((b) => b64(b.shielded)));
    expect(frames[frames.length - 1]!.flag).toBe(FLAG_GRPC_WEB_TRAILER);
  });
});
