import { create, type DescMessage, fromBinary, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import * as compact from "./gen/compact_formats_pb.js";
import * as service from "./gen/service_pb.js";
import {
  BlockRangeSchema,
  ChainMetadataSchema,
  CompactBlockSchema,
  CompactTxSchema,
  GetAddressUtxosReplySchema,
  LightdInfoSchema,
  PoolType,
  SubtreeRootSchema,
} from "./index.ts";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

function allSchemas(): DescMessage[] {
  return [...compact.file_compact_formats.messages, ...service.file_service.messages];
}

describe("every message type", () => {
  it("covers every message of the v0.5.0 protocol", () => {
    expect(
      allSchemas()
        .map((s) => s.name)
        .sort(),
    ).toEqual(
      [
        "Address",
        "AddressList",
        "Balance",
        "BlockID",
        "BlockRange",
        "ChainMetadata",
        "ChainSpec",
        "CompactBlock",
        "CompactOrchardAction",
        "CompactSaplingOutput",
        "CompactSaplingSpend",
        "CompactTx",
        "CompactTxIn",
        "Duration",
        "Empty",
        "GetAddressUtxosArg",
        "GetAddressUtxosReply",
        "GetAddressUtxosReplyList",
        "GetMempoolTxRequest",
        "GetSubtreeRootsArg",
        "LightdInfo",
        "PingResponse",
        "RawTransaction",
        "SendResponse",
        "SubtreeRoot",
        "TransparentAddressBlockFilter",
        "TreeState",
        "TxFilter",
        "TxOut",
      ].sort(),
    );
  });

  it.each(allSchemas().map((s) => [s.typeName, s] as const))(
    "%s round-trips with every scalar field set",
    (_name, schema) => {
      const msg = create(schema, fillScalars(schema));
      const wire = toBinary(schema, msg);
      expect(toBinary(schema, fromBinary(schema, wire))).toEqual(wire);
    },
  );
});

// Sets every scalar/bytes/enum field to a non-default value so it appears on the wire.
function fillScalars(schema: DescMessage): Record<string, unknown> {
  const init: Record<string, unknown> = {};
  for (const f of schema.fields) {
    if (f.fieldKind === "scalar") {
      init[f.localName] =
        f.scalar === 9
          ? `s${f.number}`
          : f.scalar === 8
            ? true
            : f.scalar === 12
              ? bytes(3, f.number)
              : [3, 4, 6, 17, 18].includes(f.scalar)
                ? BigInt(f.number)
                : f.number;
    } else if (f.fieldKind === "enum") {
      init[f.localName] = 1;
    } else if (f.fieldKind === "list" && f.listKind === "scalar") {
      init[f.localName] = f.scalar === 9 ? ["a", "b"] : [bytes(2, 7)];
    } else if (f.fieldKind === "list" && f.listKind === "enum") {
      init[f.localName] = [2, 4];
    }
  }
  return init;
}

describe("wire bytes of hand-built messages (a wrong field number fails here)", () => {
  it("ChainMetadata puts ironwoodCommitmentTreeSize in field 3", () => {
    const m = create(ChainMetadataSchema, {
      saplingCommitmentTreeSize: 1,
      orchardCommitmentTreeSize: 2,
      ironwoodCommitmentTreeSize: 3,
    });
    expect(hex(toBinary(ChainMetadataSchema, m))).toBe("080110021803");
  });

  it("CompactTx puts ironwoodActions in field 9 and vout in field 8", () => {
    const tx = create(CompactTxSchema, {
      index: 5n,
      txid: bytes(1, 0xaa),
      ironwoodActions: [
        { nullifier: bytes(1, 1), cmx: bytes(1, 2), ephemeralKey: bytes(1, 3), ciphertext: bytes(1, 4) },
      ],
      vout: [{ value: 7n, scriptPubKey: bytes(1, 0x51) }],
    });
    // 08 05 | 12 01 aa | 42 05 (08 07 12 01 51) | 4a 0c (0a 01 01 12 01 02 1a 01 03 22 01 04)
    expect(hex(toBinary(CompactTxSchema, tx))).toBe("08051201aa420508071201514a0c0a01011201021a0103220104");
  });

  it("CompactBlock leaves field 1 unused and nests vtx in 7, chainMetadata in 8", () => {
    const b = create(CompactBlockSchema, {
      height: 1n,
      hash: bytes(1, 0xbb),
      prevHash: bytes(1, 0xcc),
      time: 2,
      vtx: [{ index: 1n }],
      chainMetadata: { saplingCommitmentTreeSize: 9 },
    });
    expect(hex(toBinary(CompactBlockSchema, b))).toBe("10011a01bb2201cc28023a02080142020809");
    expect(CompactBlockSchema.fields.find((f) => f.number === 1)).toBeUndefined();
  });

  it("BlockRange packs poolTypes in field 3 with IRONWOOD = 4", () => {
    const r = create(BlockRangeSchema, {
      start: { height: 1n },
      end: { height: 2n },
      poolTypes: [PoolType.SAPLING, PoolType.IRONWOOD],
    });
    expect(hex(toBinary(BlockRangeSchema, r))).toBe("0a020801120208021a020204");
  });

  it("LightdInfo carries lightwalletProtocolVersion in field 18", () => {
    const m = create(LightdInfoSchema, { lightwalletProtocolVersion: "v" });
    expect(hex(toBinary(LightdInfoSchema, m))).toBe("92010176");
  });

  it("SubtreeRoot starts at field 2 and GetAddressUtxosReply has address in field 6", () => {
    expect(
      hex(
        toBinary(
          SubtreeRootSchema,
          create(SubtreeRootSchema, { rootHash: bytes(1, 1), completingBlockHeight: 3n }),
        ),
      ),
    ).toBe("1201012003");
    expect(
      hex(
        toBinary(GetAddressUtxosReplySchema, create(GetAddressUtxosReplySchema, { address: "t", index: 1 })),
      ),
    ).toBe("1001320174");
  });
});
