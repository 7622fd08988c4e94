import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const protoDir = new URL(".", import.meta.url).pathname;

describe("generated protocol code", () => {
  it("is what `npm run generate` produces from the committed .proto files", () => {
    const out = mkdtempSync(join(tmpdir(), "lightedge-gen-"));
    try {
      // buf runs offline: protoc-gen-es is a local plugin from node_modules/.bin.
      execFileSync("buf", ["generate", "--output", out], {
        cwd: protoDir,
        env: { ...process.env, PATH: `${join(protoDir, "../node_modules/.bin")}:${process.env.PATH}` },
      });
      const committed = join(protoDir, "gen");
      const files = readdirSync(committed).sort();
      expect(readdirSync(join(out, "gen")).sort()).toEqual(files);
      for (const f of files) {
        expect(readFileSync(join(out, "gen", f), "utf8"), f).toBe(readFileSync(join(committed, f), "utf8"));
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
