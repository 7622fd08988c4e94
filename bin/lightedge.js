#!/usr/bin/env node
// The `lightedge` command. Node >= 22.18 runs the TypeScript sources directly (type stripping).
import "../origin/cli/main.ts";
