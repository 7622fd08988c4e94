import type { OriginServiceOptions } from "./context.ts";
import { createOriginHandler } from "./handler.ts";
import { type ListeningServer, type ListenOptions, listen } from "./server.ts";

export type OriginServer = ListeningServer;

/** The service on one listening port (h2c/h2 + HTTP/1.1; gRPC, gRPC-web and Connect). */
export function createOriginServer(
  options: OriginServiceOptions & { listen: ListenOptions },
): Promise<OriginServer> {
  return listen(createOriginHandler(options), options.listen);
}
