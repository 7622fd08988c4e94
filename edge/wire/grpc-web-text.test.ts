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

  /** The frames of a gRPC-web-text answer, base64-decoded. */
  const textFrames = async (res: Response) => [
    ...decodeFrames(base64Decode(new TextDecoder().decode(await res.arrayBuffer()))),
  ];
  const trailerOf = (frame: { message: Uint8Array }) => new TextDecoder().decode(frame.message);
  /** A gRPC-web-text call of `rpc` with `body` as sent. */
  const postText = (rpc: string, body: string, type = "application/grpc-web-text") =>
    fetchWith(testEnv("none"))(`https://edge.test/cash.z.wallet.sdk.rpc.CompactTxStreamer/${rpc}`, {
      method: "POST",
      headers: { "content-type": type, "x-grpc-web": "1" },
      body,
    });

  it("answers errors in base64 too: a body that is not base64 ends InvalidArgument in a text trailer", async () => {
    const res = await postText("GetBlock", "!!!not base64");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/grpc-web-text/);
    const frames = await textFrames(res);
    expect(frames.map((f) => f.flag)).toEqual([FLAG_GRPC_WEB_TRAILER]);
    expect(trailerOf(frames[0]!)).toMatch(/grpc-status: 3\r\n/);
    expect(decodeURIComponent(trailerOf(frames[0]!))).toContain("GetBlock: request body is not base64");
  });

  it("answers a routed call whose message does not decode in a text trailer", async () => {
    // Ping goes through the Connect router, whose request check throws before any answer exists.
    const res = await postText(
      "Ping",
      base64Encode(encodeFrame(new Uint8Array([0x0d, 0xff, 0xff, 0xff, 0x0f]))),
    );
    const frames = await textFrames(res);
    expect(frames.map((f) => f.flag)).toEqual([FLAG_GRPC_WEB_TRAILER]);
    expect(trailerOf(frames[0]!)).toMatch(/grpc-status: 3\r\n/);
    expect(decodeURIComponent(trailerOf(frames[0]!))).toContain("Ping: cannot decode Duration");
  });

  it("keeps a +json client's codec: the JSON message is answered in JSON, base64 on the wire", async () => {
    const res = await postText(
      "GetLightdInfo",
      base64Encode(encodeFrame(new TextEncoder().encode("{}"))),
      "application/grpc-web-text+json",
    );
    expect(res.headers.get("content-type")).toBe("application/grpc-web-text+json");
    const frames = await textFrames(res);
    expect(frames.map((f) => f.flag)).toEqual([0, FLAG_GRPC_WEB_TRAILER]);
    expect(JSON.parse(new TextDecoder().decode(frames[0]!.message))).toHaveProperty("chainName");
    expect(trailerOf(frames[1]!)).toMatch(/grpc-status: 0\r\n/);
  });
});
