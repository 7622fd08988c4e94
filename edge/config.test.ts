import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_BUFFERED_BYTES } from "./blocks/buffer-budget.ts";
import { readConfig } from "./config.ts";
import type { Env } from "./env.ts";
import { DEFAULT_MAX_HISTORY_RECORDS } from "./history/budget.ts";

describe("readConfig", () => {
  it("reads MAX_HISTORY_RECORDS as a positive count, the default when unset or empty", () => {
    expect(readConfig({} as Env).maxHistoryRecords).toBe(DEFAULT_MAX_HISTORY_RECORDS);
    expect(readConfig({ MAX_HISTORY_RECORDS: " " } as Env).maxHistoryRecords).toBe(
      DEFAULT_MAX_HISTORY_RECORDS,
    );
    expect(readConfig({ MAX_HISTORY_RECORDS: "1" } as Env).maxHistoryRecords).toBe(1);
    for (const bad of ["0", "-5", "1.5", "many"])
      expect(() => readConfig({ MAX_HISTORY_RECORDS: bad } as Env), bad).toThrow(
        `MAX_HISTORY_RECORDS: not a positive count: ${bad}`,
      );
  });

  it("reads MAX_BUFFERED_BYTES as a positive count, 48 MiB when unset", () => {
    expect(readConfig({} as Env).maxBufferedBytes).toBe(DEFAULT_MAX_BUFFERED_BYTES);
    expect(DEFAULT_MAX_BUFFERED_BYTES).toBe(48 * 2 ** 20);
    expect(readConfig({ MAX_BUFFERED_BYTES: "4096" } as Env).maxBufferedBytes).toBe(4096);
    expect(() => readConfig({ MAX_BUFFERED_BYTES: "0" } as Env)).toThrow(
      "MAX_BUFFERED_BYTES: not a positive count: 0",
    );
  });
});
