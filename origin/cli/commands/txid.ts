import { displayHex } from "../../../proto/bytes.ts";
import { computeTxid } from "../../chain/index.ts";
import { type Command, UsageError } from "../command.ts";
import { eachFile } from "./compact.ts";

const help = `usage: lightedge txid [--non-strict] FILE...

Parses each raw transaction (hex text or raw bytes; "-" = stdin) and prints one line per file:
FILE<TAB>txid in display order (byte-reversed, as RPC and explorers show it).
v1–v4: SHA256d; v5: ZIP 244; v6: ZIP 229.

  --non-strict   accept v6 test vectors' placeholder group id 0xFFFFFFFF

Errors go to stderr with the file and byte offset; the exit code is then 1.`;

export const command: Command = {
  summary: "raw transactions → txids (display order)",
  help,
  run: async (argv) => {
    const strictV6 = !argv.includes("--non-strict");
    const files = argv.filter((a) => a !== "--non-strict");
    const unknown = files.find((a) => a.startsWith("--"));
    if (unknown !== undefined) throw new UsageError(`unknown option ${unknown}`);
    if (files.length === 0) throw new UsageError("no FILE given");
    return eachFile("txid", files, (bytes) => displayHex(computeTxid(bytes, { strictV6 })));
  },
};
