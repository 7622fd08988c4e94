import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type Command, UsageError } from "../command.ts";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

const help = `lightedge edge --port P [--origin URL] [--store dir:PATH] [--persist DIR]

Runs the edge worker locally under \`wrangler dev\` (workerd, offline, local R2).

  --port P        port to listen on (default 8787)
  --origin URL    origin base URL for tail blocks and node-only RPCs
  --store SPEC    where sealed ranges live (default: the local R2 bucket)
  --persist DIR   wrangler's local state directory (default .wrangler/state)
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
      },
    }).valueOf() as { values: Record<string, string | undefined> };
    const port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new UsageError(`bad --port ${values.port}`);
    const args = [
      "wrangler",
      "dev",
      "--port",
      String(port),
      "--ip",
      "127.0.0.1",
      "--show-interactive-dev-session=false",
    ];
    if (values.persist) args.push("--persist-to", values.persist);
    if (values.origin) args.push("--var", `ORIGIN_URL:${values.origin}`);
    if (values.store) args.push("--var", `STORE:${values.store}`);
    const child = spawn("npx", args, {
      cwd: repoRoot,
      stdio: "inherit",
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    });
    const stop = () => child.kill("SIGTERM");
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    return await new Promise<number>((resolve) => child.on("exit", (code) => resolve(code ?? 0)));
  },
};
