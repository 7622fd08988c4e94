/** "a/b", "/a/b/" → "a/b/"; "" → "". Same rule as the origin's `s3://BUCKET/PREFIX`. */
export function normalizePrefix(prefix: string | undefined): string {
  const trimmed = (prefix ?? "").replace(/^\/+|\/+$/g, "");
  return trimmed ? `${trimmed}/` : "";
}

/** A key as a URL path: each segment percent-encoded, slashes kept. */
export function keyPath(key: string): string {
  return key.split("/").map(encodeURIComponent).join("/");
}
