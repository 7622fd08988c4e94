import { ConfigError } from "../config-error.ts";
import type { Command } from "./command.ts";
import { UsageError } from "./command.ts";

// Subcommands, loaded lazily so `lightedge txid` does not pay for the server stack.
const commands: Record<string, () => Promise<{ command: Command }>> = {
  start: () => import("./commands/start.ts"),
  compact: () => import("./commands/compact.ts"),
  txid: () => import("./commands/txid.ts"),
  devnode: () => import("./commands/devnode.ts"),
  index: () => import("./commands/index.ts"),
  origin: () => import("./commands/origin.ts"),
  "backfill-trees": () => import("./commands/backfill-trees.ts"),
  reproject: () => import("./commands/reproject.ts"),
  edge: () => import("./commands/edge.ts"),
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(await usage());
    return name === undefined ? 2 : 0;
  }
  const load = commands[name];
  if (load === undefined) {
    process.stderr.write(`lightedge: unknown command "${name}"\n\n${await usage()}`);
    return 2;
  }
  const { command } = await load();
  if (rest.includes("--help") || rest.includes("-h")) {
    process.stdout.write(`${command.help.trimEnd()}\n`);
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (err) {
    // Bad usage and configuration that cannot work: the message and the command's help, exit 2.
    if (err instanceof UsageError || err instanceof ConfigError) {
      process.stderr.write(`lightedge ${name}: ${err.message}\n\n${command.help.trimEnd()}\n`);
      return 2;
    }
    throw err;
  }
}

async function usage(): Promise<string> {
  const lines = ["usage: lightedge <command> [options]   (each command has --help)", "", "commands:"];
  for (const [name, load] of Object.entries(commands)) {
    const { command } = await load();
    lines.push(`  ${name.padEnd(9)} ${command.summary}`);
  }
  return `${lines.join("\n")}\n`;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`lightedge: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
