import { type DescField, type DescMessage, ScalarType } from "@bufbuild/protobuf";

/**
 * Checks that an encoded message is well formed for its schema before it is decoded: every tag,
 * length and varint complete, and every known field sent with its wire type. protobuf-es reads a
 * scalar field by its declared type whatever wire type the tag says, so a uint64 height sent as
 * fixed32 (`0d ff ff ff 0f`) decodes as 4294967295 instead of failing; and a truncated body is an
 * exception connect-es answers as Internal. Returns the first problem, or undefined. Pure.
 *
 * Wire types (protobuf encoding spec): 0 varint, 1 i64, 2 len, 5 i32; 3/4 (groups) are refused.
 */
export function wireProblem(schema: DescMessage, bytes: Uint8Array, depth = 0): string | undefined {
  if (depth > 32) return "message nested too deeply";
  let at = 0;
  const varint = (): bigint | undefined => {
    let value = 0n;
    for (let i = 0; i < 10; i++) {
      if (at >= bytes.length) return undefined;
      const b = bytes[at++]!;
      value |= BigInt(b & 0x7f) << BigInt(7 * i);
      if (b < 0x80) return value;
    }
    return undefined;
  };
  while (at < bytes.length) {
    const tag = varint();
    if (tag === undefined) return "truncated tag";
    const number = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    if (number === 0) return "field number 0";
    const field = schema.fields.find((f) => f.number === number);
    let body: Uint8Array | undefined;
    if (wire === 0) {
      if (varint() === undefined) return `field ${number}: truncated varint`;
    } else if (wire === 1 || wire === 5) {
      at += wire === 1 ? 8 : 4;
      if (at > bytes.length) return `field ${number}: truncated`;
    } else if (wire === 2) {
      const length = varint();
      if (length === undefined || BigInt(at) + length > BigInt(bytes.length))
        return `field ${number}: truncated`;
      body = bytes.subarray(at, at + Number(length));
      at += Number(length);
    } else {
      return `field ${number}: unsupported wire type ${wire}`;
    }
    if (field === undefined) continue;
    const allowed = wireTypesOf(field);
    if (!allowed.includes(wire)) return `${field.name}: wire type ${wire}, expected ${allowed[0]}`;
    const message = messageOf(field);
    if (body !== undefined && message !== undefined) {
      const inner = wireProblem(message, body, depth + 1);
      if (inner !== undefined) return `${field.name}.${inner}`;
    }
  }
  return undefined;
}

/** Wire types a field may arrive in (repeated numeric scalars also packed, as len). */
function wireTypesOf(field: DescField): number[] {
  const f = field as { fieldKind: string; scalar?: ScalarType; message?: DescMessage };
  if (f.fieldKind === "map" || f.message !== undefined) return [2];
  const own = f.scalar === undefined ? 0 : scalarWireType(f.scalar); // enums are varints
  return f.fieldKind === "list" && own !== 2 ? [own, 2] : [own];
}

/** The schema of a message field (singular or repeated); maps are not walked. */
function messageOf(field: DescField): DescMessage | undefined {
  const f = field as { fieldKind: string; message?: DescMessage };
  return f.fieldKind === "map" ? undefined : f.message;
}

function scalarWireType(scalar: ScalarType | undefined): number {
  switch (scalar) {
    case ScalarType.STRING:
    case ScalarType.BYTES:
      return 2;
    case ScalarType.DOUBLE:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return 1;
    case ScalarType.FLOAT:
    case ScalarType.FIXED32:
    case ScalarType.SFIXED32:
      return 5;
    default:
      return 0;
  }
}
