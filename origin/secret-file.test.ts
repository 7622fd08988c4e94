import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readSecretFile } from "./secret-file.ts";

const dir = mkdtempSync(join(tmpdir(), "lightedge-secret-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("readSecretFile", () => {
  it("reads one secret per line, skipping blanks and comments", () => {
    const path = join(dir, "ok");
    writeFileSync(path, "# edge secrets\nnew-secret\n\n  old-secret  \n", { mode: 0o600 });
    expect(readSecretFile(path)).toEqual(["new-secret", "old-secret"]);
  });

  it("refuses a file others can read, an empty one and a missing one", () => {
    const open = join(dir, "open");
    writeFileSync(open, "s\n");
    chmodSync(open, 0o644);
    expect(() => readSecretFile(open)).toThrow(/readable by others/);
    const empty = join(dir, "empty");
    writeFileSync(empty, "# nothing\n", { mode: 0o600 });
    expect(() => readSecretFile(empty)).toThrow(/no secret/);
    expect(() => readSecretFile(join(dir, "missing"))).toThrow(/--secret-file/);
  });
});
