import { createReadStream, statSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join, normalize } from "node:path";
import { spawnServer } from "./spawn.ts";

/**
 * A directory store served as a public bucket (GET with a single `Range`, HEAD, ETag, 404), in its
 * own process: the edge under Miniflare reads it through STORE_PUBLIC_URL
 * (edge/store/public-url-reader.ts), so the Worker's CPU is measured without the R2 simulator's —
 * as a deployed Worker, whose storage is a remote service. This process's CPU is counted apart,
 * as the static baseline's is.
 */
export function spawnStoreServer(storeDir: string, options: { latencyMs?: number } = {}) {
  return spawnServer("store", [
    process.execPath,
    new URL(import.meta.url).pathname,
    storeDir,
    String(options.latencyMs ?? 0),
  ]);
}

/**
 * `latencyMs` > 0 holds each response's headers that long: a remote store's time to first byte
 * (R2 publishes no latency figure; the scale scenario assumes 20 ms), which a local process lacks.
 */
function main(root: string, latencyMs: number): void {
  const server = createServer((req, res) => {
    if (latencyMs > 0) setTimeout(() => answer(req, res), latencyMs);
    else answer(req, res);
  });
  const answer = (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    const key = normalize(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname)).replace(
      /^\/+/,
      "",
    );
    if (key.startsWith("..")) return void res.writeHead(400).end();
    const path = join(root, key);
    let size: number;
    let etag: string;
    try {
      const st = statSync(path);
      if (!st.isFile()) throw new Error("not a file");
      size = st.size;
      etag = `"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
    } catch {
      return void res.writeHead(404, { "content-length": "0" }).end();
    }
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? "");
    if (m) {
      const start = Number(m[1]);
      const end = Math.min(Number(m[2]), size - 1);
      if (start >= size) return void res.writeHead(416, { "content-range": `bytes */${size}` }).end();
      res.writeHead(206, {
        "content-length": String(end - start + 1),
        "content-range": `bytes ${start}-${end}/${size}`,
        etag,
      });
      if (req.method === "HEAD") return void res.end();
      createReadStream(path, { start, end, highWaterMark: 1 << 20 }).pipe(res);
      return;
    }
    res.writeHead(200, { "content-length": String(size), etag });
    if (req.method === "HEAD") return void res.end();
    createReadStream(path, { highWaterMark: 1 << 20 }).pipe(res);
  };
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo;
    process.stdout.write(`LISTENING http://127.0.0.1:${port}\n`);
  });
}

if (process.argv[1] === new URL(import.meta.url).pathname)
  main(process.argv[2]!, Number(process.argv[3] ?? 0));
