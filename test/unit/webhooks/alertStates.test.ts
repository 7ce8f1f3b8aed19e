import { describe, expect, it } from "vitest";
import { fitToLimit, memoryAlertStates } from "../../../src/webhooks/alerts/AlertStates.js";

const at = (n: number) => ({ number: n, hash: `0x${n.toString(16).padStart(64, "0")}` });

describe("alert states", () => {
  it("default: states under the limit are written whole", () => {
    const fired = { a: at(1), b: at(2) };
    expect(fitToLimit(fired)).toEqual({ fired, dropped: 0 });
  });

  it("edge: states over the limit keep the most recent blocks, never failing the write", () => {
    const fired = Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`key-${i}`, at(i)]));
    const { fired: kept, dropped } = fitToLimit(fired, 20_000);
    expect(dropped).toBeGreaterThan(0);
    expect(JSON.stringify({ fired: kept }).length).toBeLessThanOrEqual(20_000);
    const blocks = Object.values(kept).map((s) => s.number);
    expect(Math.min(...blocks)).toBe(1_000 - blocks.length);
  });

  it("error: a write against a revision another write moved fails", async () => {
    const store = memoryAlertStates();
    const first = await store.read(1);
    await store.write(1, { a: at(1) }, first.revision);
    await expect(store.write(1, { b: at(2) }, first.revision)).rejects.toThrow(/changed meanwhile/);
    expect((await store.read(1)).fired).toEqual({ a: at(1) });
  });
});
