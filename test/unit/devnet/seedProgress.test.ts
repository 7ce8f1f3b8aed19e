import { describe, expect, it } from "vitest";
import { makeSeedProgress } from "../../../src/devnet/seedProgress.js";

/** A clock the test moves by hand. */
const clock = () => {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
};

describe("devnet seed progress", () => {
  it("behavior: without a terminal every step of every chain is a log line with its number and the time so far", () => {
    const lines: Array<string> = [];
    const time = clock();
    const progress = makeSeedProgress({
      chains: ["ethereum", "base"],
      log: (l) => lines.push(l),
      now: time.now,
    });
    progress.step("ethereum", "starting node");
    time.advance(4_000);
    progress.step("ethereum", "deploying protocols");
    time.advance(8_000);
    progress.step("base", "creating markets");
    progress.step("ethereum", "done");
    progress.step("base", "done");
    time.advance(500);
    progress.finish();
    expect(lines).toEqual([
      "devnet ethereum [1/11] starting node (0s)",
      "devnet ethereum [2/11] deploying protocols (4s)",
      "devnet base [3/11] creating markets (12s)",
      "devnet ethereum [11/11] done (12s)",
      "devnet base [11/11] done (12s)",
      "devnet seeded 2 chains in 13s",
    ]);
  });

  it("behavior: on a terminal one line is redrawn in place with each chain's step, then replaced by the summary", () => {
    const lines: Array<string> = [];
    let screen = "";
    const time = clock();
    const progress = makeSeedProgress({
      chains: ["ethereum", "base", "optimism", "ink"],
      log: (l) => lines.push(l),
      live: { write: (text) => (screen += text), columns: 80 },
      now: time.now,
    });
    progress.step("ethereum", "deploying protocols");
    time.advance(12_000);
    progress.step("base", "opening liquidity positions");
    progress.step("optimism", "mining history");
    // Only the live line changed: no log line per step on a terminal.
    expect(lines).toEqual([]);
    const frames = screen.split("\r\u001B[2K").filter((f) => f.length > 0);
    expect(frames.at(-1)).toBe(
      "devnet seed 12s: ethereum protocols, base liquidity, optimism history, ink node",
    );
    for (const frame of frames) expect(frame.length).toBeLessThan(80);
    progress.finish();
    expect(screen.endsWith("\r\u001B[2K")).toBe(true);
    expect(lines).toEqual(["devnet seeded 4 chains in 12s"]);
  });

  it("edge: a narrow terminal gets the line cut with an ellipsis, never wrapped", () => {
    let screen = "";
    const progress = makeSeedProgress({
      chains: ["ethereum", "base", "optimism", "ink"],
      log: () => {},
      live: { write: (text) => (screen += text), columns: 40 },
    });
    progress.step("ink", "opening lending positions");
    const frame = screen.split("\r\u001B[2K").at(-1)!;
    expect(frame.length).toBeLessThanOrEqual(39);
    expect(frame.endsWith("…")).toBe(true);
  });
});
