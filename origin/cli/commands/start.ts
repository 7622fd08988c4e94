import type { Command } from "../command.ts";
import { command as edge } from "./edge.ts";

export const command: Command = {
  summary: "run lightedge locally on embedded defaults",
  help: `lightedge start [--edge-port P]

Starts lightedge on embedded defaults. For now: the edge worker under wrangler dev.`,
  run: (argv) => edge.run(argv.map((a) => (a === "--edge-port" ? "--port" : a))),
};
