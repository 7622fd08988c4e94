import { createReadStream, statSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { spawnServer } from "./spawn.ts";

/**
 * The baseline every scenario is compared with: a plain node:http server streaming a file's bytes
 * (a byte range via `?offset=&length=`), i.e. what this machine can serve at all. It runs as its
 * own process so its CPU is measured apart from the load generators.
 */
export function spawnStaticServer(file: string) {
  return spawnServer("static", [process.execPath, new URL(import.meta.url).pathname, file]);
}

function main(file: string): void {
  const size = statSync(file).size;
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? "/", "http://x");
    const offset = Number(u.searchParams.get("offset") ?? 0);
    const length = Number(u.searchParams.get("length") ?? size - offset);
    // Drain request bodies (load generators POST the same bodies they send to the edge).
    req.resume();
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": length });
    createReadStream(file, { start: offset, end: offset + length - 1, highWaterMark: 1 << 20 }).pipe(res);
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo;
    process.stdout.write(`LISTENING http://127.0.0.1:${port}/\n`);
  });
}

if (process.argv[1] === new URL(import.meta.url).pathname) main(process.argv[2]!);
