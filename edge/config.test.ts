import { describe, expect, it } from "vitest";
import { DEFAULT_SPAN_READ_BYTES } from "../proto/range/index.ts";
import { DEFAULT_MAX_BUFFERED_BYTES } from "./blocks/buffer-budget.ts";
import { DEFAULT_SUBREQUEST_BUDGET } from "./blocks/plan.ts";
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

  it("reads MAX_BUFFERED_BYTES as a positive count, 44 MiB when unset", () => {
    expect(readConfig({} as Env).maxBufferedBytes).toBe(DEFAULT_MAX_BUFFERED_BYTES);
    expect(DEFAULT_MAX_BUFFERED_BYTES).toBe(48 * 2 ** 20);
    expect(readConfig({ MAX_BUFFERED_BYTES: "4096" } as Env).maxBufferedBytes).toBe(4096);
    expect(() => readConfig({ MAX_BUFFERED_BYTES: "0" } as Env)).toThrow(
      "MAX_BUFFERED_BYTES: not a positive count: 0",
    );
  });

  it("reads SPAN_READ_BYTES as a positive count, 4 MiB when unset, and keeps the subrequest budget", () => {
    expect(readConfig({} as Env).spanReadBytes).toBe(DEFAULT_SPAN_READ_BYTES);
    expect(DEFAULT_SPAN_READ_BYTES).toBe(4 * 2 ** 20);
    expect(readConfig({ SPAN_READ_BYTES: "300" } as Env).spanReadBytes).toBe(300);
    expect(() => readConfig({ SPAN_READ_BYTES: "-1" } as Env)).toThrow(
      "SPAN_READ_BYTES: not a positive count: -1",
    );
    expect(readConfig({ SUBREQUEST_BUDGET: "1000" } as Env).subrequestBudget).toBe(1000);
    expect(readConfig({} as Env).subrequestBudget).toBe(DEFAULT_SUBREQUEST_BUDGET);
  });
});
