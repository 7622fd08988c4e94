// The bench's baseline: a plain node:http server streaming a file of the same bytes the edge sends
// (run as its own process so its CPU time can be read from /proc). Usage: node … FILE
// `/` answers the whole file; `/?from=i&to=j` answers blocks i..j (0-based, inclusive) and the
// trailer frame, as the edge answers a range of those blocks: a slice of the file, no other work.
import { createReadStream, readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const file = process.argv[2]!;
const size = statSync(file).size;
// Frame starts (5-byte header: flag + u32 BE length); the last frame is the trailer.
const bytes = readFileSync(file);
const starts: number[] = [];
for (let at = 0; at < bytes.length; at += 5 + bytes.readUInt32BE(at + 1)) starts.push(at);
const trailer = bytes.subarray(starts[starts.length - 1]!);
const server = createServer((req, res) => {
  const q = new URL(req.url ?? "/", "http://x").searchParams;
  if (q.has("from")) {
    const from = starts[Number(q.get("from"))]!;
    const to = starts[Number(q.get("to")) + 1]!;
    res.writeHead(200, {
      "content-type": "application/grpc-web+proto",
      "content-length": String(to - from + trailer.length),
    });
    res.write(bytes.subarray(from, to));
    res.end(trailer);
    return;
  }
  res.writeHead(200, { "content-type": "application/grpc-web+proto", "content-length": String(size) });
  createReadStream(file, { highWaterMark: 256 * 1024 }).pipe(res);
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
