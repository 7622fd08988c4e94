import type { Command } from "../command.ts";

export const command: Command = {
  summary: "(not built yet)",
  help: "lightedge origin — not built yet.",
  run: async () => {
    process.stderr.write("lightedge origin: not built yet\n");
    return 1;
  },
};
