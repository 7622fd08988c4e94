import { LightedgeError } from "../../proto/errors.ts";

/**
 * Keys are '/'-separated relative names (proto/range/keys.ts). A directory store maps them to
 * paths under its root, so anything that could escape the root or collide with temp files is
 * refused: no empty, "." or ".." segments, no leading dot, no backslash or NUL.
 */
export function assertSafeKey(key: string): void {
  const segments = key.split("/");
  const bad = segments.some((s) => s === "" || s.startsWith(".") || /[\\\0]/.test(s));
  if (key.length === 0 || key.length > 1024 || bad) {
    throw new LightedgeError("bad-request", "blob-store", `invalid object key ${JSON.stringify(key)}`);
  }
}

/** Prefixes may end in '/' or part-way through a name; the same segment rules apply to the rest. */
export function assertSafePrefix(prefix: string): void {
  if (prefix === "") return;
  assertSafeKey(prefix.endsWith("/") ? `${prefix}x` : prefix);
}
