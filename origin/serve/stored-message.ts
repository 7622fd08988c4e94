import { create, type DescMessage, type MessageShape, type UnknownField } from "@bufbuild/protobuf";
import { BinaryReader } from "@bufbuild/protobuf/wire";
import { FRAME_HEADER_BYTES } from "../../proto/frame.ts";

/**
 * A message that re-encodes to exactly the stored bytes without decoding them: the top-level
 * fields are kept as protobuf "unknown fields", which `toBinary` writes back verbatim (tag + raw
 * bytes). Only the top level is scanned (a CompactBlock's ~8 fields plus one entry per vtx), so a
 * stored block is served by connect-node at the cost of a shallow scan and one copy, instead of a
 * full decode and encode. Binary codecs only: JSON ignores unknown fields, so JSON callers get
 * `decodedMessage` instead (see `wantsJson`).
 */
export function storedMessage<Desc extends DescMessage>(schema: Desc, bytes: Uint8Array): MessageShape<Desc> {
  const message = create(schema) as MessageShape<Desc> & { $unknown?: UnknownField[] };
  const reader = new BinaryReader(bytes);
  const unknown: UnknownField[] = [];
  while (reader.pos < reader.len) {
    const [no, wireType] = reader.tag();
    unknown.push({ no, wireType, data: reader.skip(wireType, no) });
  }
  message.$unknown = unknown;
  return message;
}

/** The protobuf bytes of a stored frame (flag byte + 4-byte length + message). */
export function frameMessage(frame: Uint8Array): Uint8Array {
  return frame.subarray(FRAME_HEADER_BYTES);
}

/** Whether the caller asked for a JSON codec (Connect JSON, gRPC(+web)+json, Connect GET ?encoding=json). */
export function wantsJson(requestHeader: Headers, url: string): boolean {
  const type = requestHeader.get("content-type") ?? "";
  if (type.includes("json")) return true;
  return type === "" && /[?&]encoding=json(&|$)/.test(url);
}
