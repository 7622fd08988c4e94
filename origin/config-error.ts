/**
 * Configuration that cannot work, found before anything starts: a bad flag or environment value,
 * a secret file others may read, a port already taken. The CLI prints the message with the
 * command's help and exits 2, as for bad usage (origin/cli/main.ts). Errors found later, when the
 * configuration meets the node or the store, are the indexer's (origin/index/config-error.ts).
 */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}
