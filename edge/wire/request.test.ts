import { create, toBinary } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { beforeAll, describe, expect, it } from "vitest";
import { encodeFrame } from "../../proto/frame.ts";
import { BlockIDSchema } from "../../proto/index.ts";
import { fetchWith, fixture, seedBucket, testEnv } from "../testing/fixture.ts";

const URL_BASE = "https://edge.test/cash.z.wallet.sdk.rpc.CompactTxStreamer";
const bytes = (...b: number[]) => Uint8Array.from(b);

/** A gRPC-web call with a raw body: the status from trailers-only headers or the trailer frame. */
async function grpcWeb(env: ReturnType<typeof testEnv>, method: string, body: Uint8Array) {
  const res = await fetchWith(env)(`${URL_BASE}/${method}`, {
    method: "POST",
    headers: { "content-type": "application/grpc-web+proto" },
    body: body as Uint8Array<ArrayBuffer>,
  });
  const text = new TextDecoder().decode(new Uint8Array(await res.arrayBuffer()));
  const code = Number(res.headers.get("grpc-status") ?? /grpc-status: ?(\d+)/.exec(text)?.[1]);
  const message = decodeURIComponent(
    res.headers.get("grpc-message") ?? /grpc-message: ?(.*)/.exec(text)?.[1]?.trim() ?? "",
  );
  return { code, message };
}

/** A Connect unary call with a raw body. */
async function connectUnary(env: ReturnType<typeof testEnv>, method: string, body: Uint8Array) {
  const res = await fetchWith(env)(`${URL_BASE}/${method}`, {
    method: "POST",
    headers: { "content-type": "application/proto", "connect-protocol-version": "1" },
    body: body as Uint8Array<ArrayBuffer>,
  });
  return { status: res.status, json: (await res.json()) as { code: string; message: string } };
}

describe.skipIf(fixture === null)("request decoding at the edge", () => {
  beforeAll(seedBucket);
  const env = testEnv("good");
  // BlockID { height: fixed32 0xffffffff }: protobuf-es alone reads it as height 4294967295.
  const fixed32Height = bytes(0x0d, 0xff, 0xff, 0xff, 0x0f);

  it("refuses a BlockID height of the wrong wire type as InvalidArgument, fast path and router", async () => {
    for (const method of ["GetBlock", "GetBlockNullifiers", "GetTreeState"]) {
      const r = await grpcWeb(env, method, encodeFrame(fixed32Height));
      expect(r.code, method).toBe(Code.InvalidArgument);
      expect(r.message, method).toMatch(new RegExp(`^${method}: .*height \\(1\\) has wire type 5`));
      const u = await connectUnary(env, method, fixed32Height);
      expect(u.json.code, method).toBe("invalid_argument");
    }
    // BlockRange { start: BlockID{ height: fixed32 } , end: … }
    const range = bytes(0x0a, 5, ...fixed32Height, 0x12, 2, 0x08, 1);
    const r = await grpcWeb(env, "GetBlockRange", encodeFrame(range));
    expect(r.code).toBe(Code.InvalidArgument);
    expect(r.message).toMatch(/height \(1\) has wire type 5/);
  });

  it("refuses a truncated GetTreeState or GetTransaction body as InvalidArgument, not Internal", async () => {
    const full = toBinary(BlockIDSchema, create(BlockIDSchema, { hash: new Uint8Array(32) }));
    for (const method of ["GetTreeState", "GetTransaction"]) {
      const r = await grpcWeb(env, method, encodeFrame(full.subarray(0, 20)));
      expect(r.code, method).toBe(Code.InvalidArgument);
      const u = await connectUnary(env, method, full.subarray(0, 20));
      expect(u.json.code, method).toBe("invalid_argument");
    }
  });

  it("reports a request frame with the trailer flag as such, not as compressed", async () => {
    const message = toBinary(BlockIDSchema, create(BlockIDSchema, { height: 663150n }));
    const trailer = encodeFrame(message);
    trailer[0] = 0x80;
    const r = await grpcWeb(env, "GetBlock", trailer);
    expect(r.code).toBe(Code.InvalidArgument);
    expect(r.message).toMatch(/trailer flag \(0x80\)/);
    expect(r.message).not.toMatch(/compress/);
    const compressed = encodeFrame(message);
    compressed[0] = 0x01;
    expect((await grpcWeb(env, "GetBlock", compressed)).message).toMatch(/compressed/);
  });

  it('says "height N", never "height height N"', async () => {
    const big = toBinary(BlockIDSchema, create(BlockIDSchema, { height: 2n ** 40n }));
    const r = await grpcWeb(env, "GetBlock", encodeFrame(big));
    expect(r.code).toBe(Code.OutOfRange);
    expect(r.message).toBe(`GetBlock: height ${2n ** 40n} is above the tip`);
  });

  it("quotes a bad JSON value briefly, not whole", async () => {
    const big = "!".repeat(50_000);
    for (const body of [`{"height":"${big}"}`, big, `{"hash":"${big}"}`]) {
      const res = await fetchWith(env)(`${URL_BASE}/GetTreeState`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      expect(res.status).toBe(400);
      const json = (await res.json()) as { code: string; message: string };
      expect(json.code).toBe("invalid_argument");
      expect(json.message).toMatch(/^GetTreeState: cannot decode/);
      expect(json.message.length).toBeLessThan(250);
    }
  });
});
