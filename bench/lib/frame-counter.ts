/**
 * Counts data frames in a gRPC-web or Connect stream body, chunk by chunk, and captures the
 * end-of-stream frame (gRPC-web trailers, flag 0x80; Connect end-stream JSON, flag 0x02) so the
 * load generator can tell success from a failed stream without decoding messages.
 */
export function createFrameCounter() {
  let header = new Uint8Array(5);
  let headerFill = 0;
  let remaining = 0;
  let flag = 0;
  let trailer: number[] | null = null;
  let frames = 0;
  return {
    push(chunk: Uint8Array): void {
      let i = 0;
      while (i < chunk.length) {
        if (remaining === 0 && headerFill < 5) {
          header[headerFill++] = chunk[i++]!;
          if (headerFill === 5) {
            flag = header[0]!;
            remaining = ((header[1]! << 24) | (header[2]! << 16) | (header[3]! << 8) | header[4]!) >>> 0;
            if (flag & 0x82) trailer = [];
            else frames++;
            if (remaining === 0) headerFill = 0;
          }
          continue;
        }
        const take = Math.min(remaining, chunk.length - i);
        if (trailer !== null && flag & 0x82) for (let k = 0; k < take; k++) trailer.push(chunk[i + k]!);
        i += take;
        remaining -= take;
        if (remaining === 0) {
          headerFill = 0;
          header = new Uint8Array(5);
        }
      }
    },
    get frames() {
      return frames;
    },
    /** Trailer text (gRPC-web) or end-stream JSON (Connect), if one arrived. */
    get trailer(): string | null {
      return trailer === null ? null : Buffer.from(trailer).toString("utf8");
    },
  };
}

/** True when an end-of-stream text reports success (grpc-status 0, or Connect without error). */
export function trailerOk(trailer: string | null, headerStatus: string | undefined): boolean {
  if (headerStatus !== undefined) return headerStatus === "0";
  if (trailer === null) return false;
  if (trailer.startsWith("{")) return !trailer.includes('"error"');
  const m = /grpc-status:\s*(\d+)/i.exec(trailer);
  return m !== null && m[1] === "0";
}
