import { badResponse } from "./rpc.ts";

/**
 * Shape checks for node answers: a node that answers with the wrong shape gets a typed
 * "malformed" error here rather than a NaN or an undefined deep inside the indexer.
 */

/** A non-negative safe integer (heights, sizes, zatoshi). */
export function int(method: string, value: unknown, what: string): number {
  if (typeof value === "number" && Number.isSafeInteger(value)) return value;
  throw badResponse(method, `${what} is not a safe integer`);
}

/** An optional integer: absent/null → fallback. */
export function optInt(method: string, value: unknown, what: string, fallback: number): number {
  return value === undefined || value === null ? fallback : int(method, value, what);
}

export function str(method: string, value: unknown, what: string): string {
  if (typeof value === "string") return value;
  throw badResponse(method, `${what} is not a string`);
}

const hashPattern = /^[0-9a-f]{64}$/;

/** A 32-byte hash in display hex (lower-cased). */
export function hash(method: string, value: unknown, what: string): string {
  const s = typeof value === "string" ? value.toLowerCase() : "";
  if (hashPattern.test(s)) return s;
  throw badResponse(method, `${what} is not a 32-byte hex hash`);
}

export function obj(method: string, value: unknown, what: string): Record<string, unknown> {
  if (typeof value === "object" && value !== null && !Array.isArray(value))
    return value as Record<string, unknown>;
  throw badResponse(method, `${what} is not an object`);
}

export function arr(method: string, value: unknown, what: string): unknown[] {
  if (Array.isArray(value)) return value;
  throw badResponse(method, `${what} is not an array`);
}

/**
 * Hex → bytes. Buffer's decoder stops at the first bad digit, so the length check catches it.
 * Big hex results arrive already decoded (rpc-body.ts checked them the same way).
 */
export function hexBytes(method: string, value: unknown, what: string): Uint8Array {
  if (value instanceof Uint8Array) return value;
  const s = str(method, value, what);
  const bytes = Buffer.from(s, "hex");
  if (bytes.length * 2 !== s.length) throw badResponse(method, `${what} is not hex`);
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
}
