import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { LightedgeError } from "../../proto/errors.ts";
import { guardStream, guardUnary, rpcError } from "./rpc-errors.ts";

describe("guarded handlers", () => {
  const observed: [string, string][] = [];
  const logged: unknown[] = [];
  const guard = {
    pushbackMs: 250,
    log: (_rpc: string, err: unknown) => logged.push(err),
    observer: { observe: (rpc: string, code: string) => observed.push([rpc, code]) },
  };

  it("answers Unavailable with retry pushback and counts the call", async () => {
    const handler = guardUnary("GetTransaction", guard, async () => {
      throw new LightedgeError("unavailable", "node", "node is down");
    });
    const err = ConnectError.from(await handler({}, {}).catch((e: unknown) => e));
    expect(err.code).toBe(Code.Unavailable);
    expect(err.rawMessage).toBe("GetTransaction: node is down");
    expect(err.metadata.get("grpc-retry-pushback-ms")).toBe("250");
    expect(observed.at(-1)).toEqual(["GetTransaction", "unavailable"]);
  });

  it("hides internal details from the client and logs them", async () => {
    const handler = guardStream("GetBlockRange", guard, async function* () {
      yield 1;
      throw new Error("secret detail");
    });
    const seen: number[] = [];
    const err = await (async () => {
      for await (const n of handler({}, {})) seen.push(n);
    })().catch((e: unknown) => ConnectError.from(e));
    expect(seen).toEqual([1]);
    expect(err?.code).toBe(Code.Internal);
    expect(err?.rawMessage).toBe("GetBlockRange: internal error");
    expect(String(logged.at(-1))).toMatch(/secret detail/);
    expect(observed.at(-1)).toEqual(["GetBlockRange", "internal"]);
  });

  it("writes a message quoting a lone surrogate as well-formed text (connect's grpc-message encoding would throw)", () => {
    const err = rpcError("GetTreeState", new LightedgeError("bad-request", "t", "bad \ud800 input"), 1000);
    expect(err.rawMessage).toBe("GetTreeState: bad \ufffd input");
    expect(() => encodeURIComponent(err.rawMessage)).not.toThrow();
  });
});
