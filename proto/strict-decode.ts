import {
  type DescField,
  type DescMessage,
  fromBinary,
  type MessageShape,
  ScalarType,
} from "@bufbuild/protobuf";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";

/** The wire type a scalar is encoded with (protobuf encoding spec, "Message Structure"). */
function scalarWireType(t: ScalarType): WireType {
  switch (t) {
    case ScalarType.DOUBLE:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return WireType.Bit64;
    case ScalarType.FLOAT:
    case ScalarType.FIXED32:
    case ScalarType.SFIXED32:
      return WireType.Bit32;
    case ScalarType.STRING:
    case ScalarType.BYTES:
      return WireType.LengthDelimited;
    default:
      return WireType.Varint;
  }
}

/** Wire types a field may arrive in: repeated numeric fields packed or not (the spec requires both). */
function allowedWireTypes(field: DescField): WireType[] {
  switch (field.fieldKind) {
    case "scalar":
      return [scalarWireType(field.scalar)];
    case "enum":
      return [WireType.Varint];
    case "message":
      return field.delimitedEncoding ? [WireType.StartGroup] : [WireType.LengthDelimited];
    case "map":
      return [WireType.LengthDelimited];
    case "list":
      if (field.listKind === "message")
        return field.delimitedEncoding ? [WireType.StartGroup] : [WireType.LengthDelimited];
      if (field.listKind === "enum") return [WireType.Varint, WireType.LengthDelimited];
      return field.scalar === ScalarType.STRING || field.scalar === ScalarType.BYTES
        ? [WireType.LengthDelimited]
        : [scalarWireType(field.scalar), WireType.LengthDelimited];
  }
}

const MAX_DEPTH = 32;

/**
 * Throws when a known field arrives in the wrong wire type. protobuf-es reads a field by its
 * declared type whatever the tag's wire type says, so a BlockID height sent as fixed32
 * `0d ff ff ff 0f` decodes as height 4294967295; a peer that checks (protoc's parsers treat a
 * mismatched wire type as an unknown field, lightwalletd's Go parser refuses it) never sees it.
 * Unknown fields are skipped, as the spec requires.
 */
export function assertWireTypes(schema: DescMessage, bytes: Uint8Array, depth = 0): void {
  if (depth > MAX_DEPTH) throw new Error("message nesting too deep");
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [no, wireType] = reader.tag();
    const field = schema.fields.find((f) => f.number === no);
    if (field !== undefined && !allowedWireTypes(field).includes(wireType)) {
      throw new Error(`field ${field.name} (${no}) has wire type ${wireType}`);
    }
    if (field?.fieldKind === "message" && wireType === WireType.LengthDelimited) {
      assertWireTypes(field.message, reader.bytes(), depth + 1);
    } else if (
      field?.fieldKind === "list" &&
      field.listKind === "message" &&
      wireType === WireType.LengthDelimited
    ) {
      assertWireTypes(field.message, reader.bytes(), depth + 1);
    } else {
      reader.skip(wireType, no);
    }
  }
}

/** fromBinary, refusing known fields in the wrong wire type first (assertWireTypes). */
export function decodeStrict<Desc extends DescMessage>(schema: Desc, bytes: Uint8Array): MessageShape<Desc> {
  assertWireTypes(schema, bytes);
  return fromBinary(schema, bytes);
}
