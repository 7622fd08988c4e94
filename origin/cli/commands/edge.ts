import { parseArgs } from "node:util";
import { type EdgeDevOptions, startEdgeDev } from "../../main/edge-dev.ts";
import { type Command, UsageError } from "../command.ts";

const help = `lightedge edge --port P [--origin URL] [--store r2|dir:PATH] [--persist DIR] [--networks LIST]

Runs the edge worker locally under \`wrangler dev\` (workerd, offline).

  --port P          port to listen on (default 8787; 0 picks a free one)
  --origin URL      origin base URL for tail blocks and node-only RPCs (or network=url,...)
  --store SPEC      where sealed ranges live:
                      r2        the local R2 bucket in --persist (default)
                      dir:PATH  a directory store written by the origin: served read-only over a
                                local HTTP server as STORE_PUBLIC_URL, so the directory stays the
                                one source of truth (no copy into R2)
  --persist DIR     wrangler's local state directory (default .wrangler/state)
  --networks LIST   networks served, first is the default (default: with dir:PATH, the networks
                    whose head object the store holds; else wrangler.toml's NETWORKS)

The origin's shared secret is read from LIGHTEDGE_ORIGIN_SECRET.
`;

export const command: Command = {
  summary: "run the edge worker locally under wrangler dev",
  help,
  async run(argv) {
    const { values } = parseArgs({
      args: argv,
      options: {
        port: { type: "string", default: "8787" },
        origin: { type: "string" },
        store: { type: "string" },
        persist: { type: "string" },
        networks: { type: "string" },
      },
    });
    const port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new UsageError(`bad --port ${values.port}`);
    const edge = await startEdgeDev({ ...values, port } as EdgeDevOptions);
    process.stdout.write(`edge listening on ${edge.url}\n`);
    const stopped = new Promise<number>((resolve) => {
      const stop = () => void edge.stop().then(() => resolve(0));
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      process.once("SIGHUP", stop);
    });
    const died = edge.failed.then((exit) => {
      process.stderr.write(
        `lightedge edge: ${exit.name} exited (${exit.signal ?? `code ${exit.code}`}); stopped everything\n`,
      );
      return 1;
    });
    return await Promise.race([stopped, died]);
  },
};
