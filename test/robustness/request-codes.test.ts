import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FastProtocol } from "../../origin/serve/fast/detect.ts";
import { type RawResponse, rawCall } from "../../origin/serve/fast/raw-call.ts";
import { createOriginServer, type OriginServer } from "../../origin/serve/origin-server.ts";
import { type Stack, startStack } from "../../origin/serve/testing.ts";
import { decodeFrames } from "../../proto/frame.ts";

let stack: Stack;
let slow: OriginServer;
beforeAll(async () => {
  stack = await startStack({ blocks: 20, seed: "codes" });
  slow = await createOriginServer({
    chain: stack.indexer.view,
    node: stack.node,
    network: "regtest",
    fastPath: false,
    listen: { host: "127.0.0.1", port: 0 },
  });
});
afterAll(async () => {
  await slow?.close();
  await stack?.close();
});

/** The status of a raw response: [code name or number, message]. */
function statusOf(protocol: FastProtocol, r: RawResponse): [string, string] {
  if (protocol === "connect-unary") {
    const body = JSON.parse(r.body.toString());
    return [body.code ?? "ok", body.message ?? ""];
  }
  if (protocol === "grpc")
    return [r.trailers["grpc-status"] ?? "?", decodeURIComponent(r.trailers["grpc-message"] ?? "")];
  const text = Buffer.from([...decodeFrames(r.body)].at(-1)!.message).toString();
  return [
    /grpc-status: (\d+)/.exec(text)?.[1] ?? "?",
    decodeURIComponent(/grpc-message: (.*)/.exec(text)?.[1]?.trim() ?? ""),
  ];
}

const PROTOCOLS: FastProtocol[] = ["grpc", "grpc-web", "connect-unary"];
const invalid = (p: FastProtocol) => (p === "connect-unary" ? "invalid_argument" : "3");

describe("request codes at the origin", () => {
  it("answers a truncated GetTreeState body InvalidArgument, not Internal", async () => {
    const truncated = new Uint8Array([0x12, 32, 1, 2, 3, 4, 5]);
    for (const url of [stack.server.url, slow.url]) {
      for (const p of PROTOCOLS) {
        const [code, message] = statusOf(p, await rawCall(url, p, "GetTreeState", truncated));
        expect(code, p).toBe(invalid(p));
        expect(message).toMatch(/^GetTreeState: cannot decode BlockID: /);
      }
    }
  });

  it("refuses a BlockID height in the wrong wire type instead of reading it as 4294967295", async () => {
    const fixed32 = new Uint8Array([0x0d, 0xff, 0xff, 0xff, 0x0f]);
    for (const url of [stack.server.url, slow.url]) {
      for (const rpc of ["GetBlock", "GetBlockNullifiers", "GetTreeState"]) {
        for (const p of PROTOCOLS) {
          const [code, message] = statusOf(p, await rawCall(url, p, rpc, fixed32));
          expect(code, `${rpc} ${p}`).toBe(invalid(p));
          expect(message).toMatch(new RegExp(`^${rpc}: cannot decode BlockID: `));
        }
      }
    }
  });

  it("names a request frame with the trailer flag as such", async () => {
    for (const url of [stack.server.url, slow.url]) {
      for (const rpc of ["GetBlockRange", "GetLatestBlock"]) {
        const r = await rawTrailerFrame(url, rpc);
        const [code, message] = statusOf("grpc-web", r);
        expect(code).toBe("3");
        expect(message).toMatch(/trailer flag/);
        expect(message).not.toMatch(/compressed/);
      }
    }
  });
});

/** A gRPC-web request whose only frame carries the trailer flag (0x80). */
async function rawTrailerFrame(url: string, rpc: string): Promise<RawResponse> {
  const body = new Uint8Array([0x80, 0, 0, 0, 0]);
  const res = await fetch(`${url}/cash.z.wallet.sdk.rpc.CompactTxStreamer/${rpc}`, {
    method: "POST",
    headers: { "content-type": "application/grpc-web+proto" },
    body,
  });
  return {
    status: res.status,
    contentType: res.headers.get("content-type") ?? undefined,
    body: Buffer.from(await res.arrayBuffer()),
    trailers: {},
  };
}

describe("JSON request messages", () => {
  it("answer a JSON body quoting a lone surrogate with InvalidArgument, not a call left without a status", async () => {
    const json = Buffer.from('{"height":"\\ud800"}');
    const framed = Buffer.concat([Buffer.from([0, 0, 0, 0, json.length]), json]);
    for (const url of [stack.server.url, slow.url]) {
      for (const [type, body] of [
        ["application/grpc-web+json", framed],
        ["application/json", json],
      ] as const) {
        const res = await fetch(`${url}/cash.z.wallet.sdk.rpc.CompactTxStreamer/GetTreeState`, {
          method: "POST",
          headers: { "content-type": type },
          body,
          signal: AbortSignal.timeout(5000),
        });
        const text = Buffer.from(await res.arrayBuffer()).toString("latin1");
        if (type === "application/json") expect(JSON.parse(text).code).toBe("invalid_argument");
        else expect(text).toMatch(/grpc-status: 3/);
      }
    }
  });
});
