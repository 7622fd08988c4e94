import { fromBinary, toBinary, toJsonString } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { CompactBlockSchema } from "../../proto/index.ts";
import { parseBlock, projectBlock } from "../chain/index.ts";
import { createDevChain } from "../devnode/chain.ts";
import { storedMessage, wantsJson } from "./stored-message.ts";

describe("stored message pass-through", () => {
  const chain = createDevChain({ network: "regtest", seed: "stored-message", blocks: 40 });

  it("re-encodes every projection of synthetic blocks byte for byte without decoding", () => {
    let checked = 0;
    for (let h = 1; h < 40; h++) {
      const dev = chain.block(h);
      const projections = projectBlock(parseBlock(dev.raw, { strictV6: false }), dev.treeSizes);
      for (const bytes of [projections.full, projections.shielded, projections.nullifiers]) {
        const message = storedMessage(CompactBlockSchema, bytes);
        expect(Buffer.from(toBinary(CompactBlockSchema, message)).equals(Buffer.from(bytes))).toBe(true);
        checked++;
      }
    }
    expect(checked).toBe(39 * 3);
  });

  it("is a different object from a decoded block, which JSON callers get instead", () => {
    const dev = chain.block(5);
    const full = projectBlock(parseBlock(dev.raw, { strictV6: false }), dev.treeSizes).full;
    expect(toJsonString(CompactBlockSchema, storedMessage(CompactBlockSchema, full))).toBe("{}");
    expect(fromBinary(CompactBlockSchema, full).height).toBe(5n);
  });

  it("knows JSON callers from the content type or the Connect GET encoding", () => {
    expect(wantsJson(new Headers({ "content-type": "application/connect+json" }), "/x")).toBe(true);
    expect(wantsJson(new Headers({ "content-type": "application/grpc-web+proto" }), "/x")).toBe(false);
    expect(wantsJson(new Headers(), "/x?encoding=json&message=e30")).toBe(true);
    expect(wantsJson(new Headers(), "/x?encoding=proto")).toBe(false);
  });
});
