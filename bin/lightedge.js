#!/usr/bin/env node
// The `lightedge` command. Node >= 22.18 runs the TypeScript sources directly (type stripping);
// an older Node cannot even load them (ERR_UNKNOWN_FILE_EXTENSION), so this plain-JS entry checks
// the version first and says what to do in one line.
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  console.error(
    `lightedge needs Node.js >= 22.18 (this is ${process.version}): run \`source scripts/ensure-node.sh\`, which installs Node 24 into ~/.cache/lightedge and puts it first on PATH`,
  );
  process.exit(1);
}
await import("../origin/cli/main.ts");
