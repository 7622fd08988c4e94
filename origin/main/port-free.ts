import { createServer } from "node:net";
import { ConfigError } from "../config-error.ts";

/**
 * Fails fast when a fixed port is taken. wrangler dev only says so in its output, and keeps running
 * (startEdgeDev reads it there), so `npm start` checks the edge port before it starts anything
 * else, rather than seconds later with the origin already up. Port 0 (any free port) always passes.
 */
export async function assertPortFree(port: number, host: string, what: string): Promise<void> {
  if (port === 0) return;
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        err.code === "EADDRINUSE"
          ? new ConfigError(
              `${what} port ${port} on ${host} is in use (pick another, or 0 for any free port)`,
            )
          : err,
      ),
    );
    server.listen(port, host, () => server.close(() => resolve()));
  });
}
