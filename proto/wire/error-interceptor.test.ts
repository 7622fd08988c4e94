import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { LightedgeError } from "../errors.ts";
import { CompactTxStreamer } from "../index.ts";
import { errorInterceptor } from "./error-interceptor.ts";

/** A real Connect router (in memory) whose handlers fail as a service's would. */
function clientWith(fail: (rpc: string) => unknown) {
  const observed: [string, string][] = [];
  const logged: [string, unknown][] = [];
  const transport = createRouterTransport(
    (router) =>
      router.service(CompactTxStreamer, {
        getTransaction: async () => {
          throw fail("GetTransaction");
        },
        getBlockRange: async function* () {
          yield {};
          throw fail("GetBlockRange");
        },
      }),
    {
      router: {
        interceptors: [
          errorInterceptor({
            pushbackMs: 250,
            log: (rpc, err) => logged.push([rpc, err]),
            observer: { observe: (rpc, code) => observed.push([rpc, code]) },
          }),
        ],
      },
    },
  );
  return { client: createClient(CompactTxStreamer, transport), observed, logged };
}

describe("the router's error interceptor", () => {
  it("maps a domain error to its code, the RPC first in its message, with a pushback on Unavailable", async () => {
    const { client, observed } = clientWith(() => new LightedgeError("unavailable", "node", "node is down"));
    const err = await client.getTransaction({}).then(
      () => ConnectError.from("no error"),
      (e: unknown) => ConnectError.from(e),
    );
    expect(err.code).toBe(Code.Unavailable);
    expect(err.rawMessage).toBe("GetTransaction: node is down");
    expect(err.metadata.get("grpc-retry-pushback-ms")).toBe("250");
    expect(observed.at(-1)).toEqual(["GetTransaction", "unavailable"]);
  });

  it("hides an internal cause mid-stream from the client, logs it, and ends the stream with Internal", async () => {
    const { client, observed, logged } = clientWith(() => new Error("secret detail"));
    const seen: unknown[] = [];
    const err = await (async () => {
      for await (const b of client.getBlockRange({})) seen.push(b);
    })().catch((e: unknown) => ConnectError.from(e));
    expect(seen).toHaveLength(1);
    expect(err?.code).toBe(Code.Internal);
    expect(err?.rawMessage).toBe("GetBlockRange: internal error");
    expect(logged.at(-1)?.[0]).toBe("GetBlockRange");
    expect(String(logged.at(-1)?.[1])).toMatch(/secret detail/);
    expect(observed.at(-1)).toEqual(["GetBlockRange", "internal"]);
  });

  it("writes a message quoting a lone surrogate as well-formed text (connect's grpc-message encoding would throw)", async () => {
    const { client } = clientWith(() => new LightedgeError("bad-request", "t", "bad \ud800 input"));
    const err = await client.getTransaction({}).then(
      () => ConnectError.from("no error"),
      (e: unknown) => ConnectError.from(e),
    );
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.rawMessage).toBe("GetTransaction: bad \ufffd input");
  });
});
