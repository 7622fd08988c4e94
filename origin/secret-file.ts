import { readFileSync, statSync } from "node:fs";
import { ConfigError } from "./config-error.ts";

/**
 * Secrets from a file (`--secret-file PATH`): one per line, blank lines and `#` comments skipped,
 * so a secret never has to appear on a command line (`/proc/PID/cmdline` is world-readable). A file
 * others may read (or write) is refused, as ssh refuses such private keys.
 */
export function readSecretFile(path: string): string[] {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch (err) {
    throw new ConfigError(`--secret-file ${path}: ${(err as Error).message}`);
  }
  if ((mode & 0o077) !== 0) {
    throw new ConfigError(
      `--secret-file ${path}: readable by others (mode ${(mode & 0o777).toString(8)}); chmod 600 it`,
    );
  }
  const secrets = readFileSync(path, "utf8")
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  if (secrets.length === 0) throw new ConfigError(`--secret-file ${path}: no secret in it`);
  return secrets;
}
