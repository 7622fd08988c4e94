// The bench's baseline: a plain node:http server streaming a file of the same bytes the edge sends
// (run as its own process so its CPU time can be read from /proc). Usage: node … FILE
import { createReadStream, statSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const file = process.argv[2]!;
const size = statSync(file).size;
const server = createServer((_req, res) => {
  res.writeHead(200, { "content-type": "application/grpc-web+proto", "content-length": String(size) });
  createReadStream(file, { highWaterMark: 256 * 1024 }).pipe(res);
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
