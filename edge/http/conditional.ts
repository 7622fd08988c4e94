/**
 * What a GET of a stored object answers, from its request headers, the object's entity tag and
 * size: RFC 9110 §13.2.2's order (If-Match, If-None-Match, then Range guarded by If-Range). Pure.
 * There is no Last-Modified, so date validators (If-Unmodified-Since, If-Modified-Since, an
 * If-Range date) never match: If-Range with a date serves the whole object (§13.1.5).
 */
export type GetAnswer =
  | { status: 200 }
  | { status: 206; offset: number; length: number }
  | { status: 304 }
  | { status: 412 }
  | { status: 416 };

export function answerFor(headers: Headers, etag: string, size: number): GetAnswer {
  const ifMatch = headers.get("if-match");
  // §13.1.1: strong comparison; "*" matches any current representation.
  if (ifMatch !== null && !(ifMatch.trim() === "*" || tagsOf(ifMatch).some((t) => strongMatch(t, etag)))) {
    return { status: 412 };
  }
  const ifNoneMatch = headers.get("if-none-match");
  // §13.1.2: weak comparison; a match on GET is 304 Not Modified.
  if (
    ifNoneMatch !== null &&
    (ifNoneMatch.trim() === "*" || tagsOf(ifNoneMatch).some((t) => weakMatch(t, etag)))
  ) {
    return { status: 304 };
  }
  const range = headers.get("range");
  if (range === null) return { status: 200 };
  // §13.1.5: a Range is honoured only if If-Range (when present) strongly matches; else 200 full.
  const ifRange = headers.get("if-range");
  if (ifRange !== null && !strongMatch(ifRange.trim(), etag)) return { status: 200 };
  const parsed = parseRange(range, size);
  if (parsed === null) return { status: 200 };
  if (parsed === "unsatisfiable") return { status: 416 };
  return { status: 206, ...parsed };
}

/**
 * One byte range of a `size`-byte object (RFC 9110 §14.1.2). null: the header is ignored and the
 * whole object served — an unknown unit (§14.2: "MUST ignore"), a syntax error, or several ranges
 * (allowed to be answered whole, §14.2; multipart/byteranges is not worth it for these objects).
 * "unsatisfiable" (→ 416 with `Content-Range: bytes *\/size`): a start past the end, a zero-length
 * suffix, or last < first (`bytes=500-10`).
 */
export function parseRange(
  value: string | null,
  size: number,
): { offset: number; length: number } | null | "unsatisfiable" {
  if (value === null) return null;
  const m = /^bytes=[ \t]*(\d*)-(\d*)[ \t]*$/i.exec(value.trim());
  if (m === null || (m[1] === "" && m[2] === "")) return null;
  if (m[1] === "") {
    const n = Math.min(Number(m[2]), size);
    return n === 0 ? "unsatisfiable" : { offset: size - n, length: n };
  }
  const first = Number(m[1]);
  if (m[2] !== "" && Number(m[2]) < first) return "unsatisfiable";
  const last = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (first >= size) return "unsatisfiable";
  return { offset: first, length: last - first + 1 };
}

/** Entity tags of a list header (`"a", W/"b"`); quoted strings may hold commas. */
function tagsOf(list: string): string[] {
  return list.match(/(?:W\/)?"[^"]*"/g) ?? [];
}

function strongMatch(tag: string, etag: string): boolean {
  return !tag.startsWith("W/") && !etag.startsWith("W/") && tag === etag;
}

function weakMatch(tag: string, etag: string): boolean {
  return tag.replace(/^W\//, "") === etag.replace(/^W\//, "");
}
