import { describe, expect, it } from "vitest";
import { hourKey, hourStart, monthKey, UsageRecord } from "../../../src/domain/Usage.js";
import { addToHour, addToMonth } from "../../../src/usage/usageAggregates.js";

const record = (cu: number, errors = 0) =>
  UsageRecord.make({
    hour: "2026112116",
    team_id: "T",
    key_id: "K",
    endpoint: "getBalances",
    requests: 2,
    errors,
    cu,
  });

describe("usage", () => {
  it("default: hour and month keys are UTC and sort in time order", () => {
    const t = Date.UTC(2026, 10, 21, 16, 59, 59);
    expect(hourKey(t)).toBe("2026112116");
    expect(monthKey(t)).toBe("202611");
    expect(hourStart("2026112116")).toBe(Date.UTC(2026, 10, 21, 16));
    expect(hourKey(Date.UTC(2026, 0, 1, 0)) > hourKey(Date.UTC(2025, 11, 31, 23))).toBe(true);
  });

  it("behavior: aggregates add requests, errors and CU per row and remember the stream sequence", () => {
    const once = addToHour({ seq: 0, rows: {} }, record(3), 5);
    const twice = addToHour(once, record(4, 1), 6);
    expect(twice).toEqual({ seq: 6, rows: { "T|K|getBalances": { requests: 4, errors: 1, cu: 7 } } });
    expect(addToMonth(addToMonth({ seq: 0, teams: {} }, record(3), 1), record(4), 2)).toEqual({
      seq: 2,
      teams: { T: 7 },
    });
  });
});
