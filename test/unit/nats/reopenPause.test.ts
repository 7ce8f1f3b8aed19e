import { describe, expect, it } from "vitest";
import { REOPEN_MAX_MS, reopenAfterEnd } from "../../../src/nats/reopenPause.js";

describe("the pause before a watch that ended is opened again", () => {
  it("behavior: doubles from 0.2 s at each quick end in a row, up to 10 s", () => {
    const pauses: Array<number> = [];
    let ends = 0;
    for (let i = 0; i < 9; i++) {
      const next = reopenAfterEnd(ends, 50);
      ends = next.endsInARow;
      pauses.push(next.pauseMs);
    }
    expect(pauses).toEqual([200, 400, 800, 1_600, 3_200, 6_400, 10_000, 10_000, 10_000]);
  });

  it("behavior: a watch that lived 10 s or more counts as the first end again", () => {
    expect(reopenAfterEnd(6, REOPEN_MAX_MS)).toEqual({ endsInARow: 1, pauseMs: 200 });
    expect(reopenAfterEnd(6, REOPEN_MAX_MS - 1).pauseMs).toBe(10_000);
  });
});
