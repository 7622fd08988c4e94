import { describe, expect, it } from "vitest";
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
});
