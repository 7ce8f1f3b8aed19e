import { describe, expect, it } from "vitest";
import { PROCESS_DEADLINE_MS, runTs } from "../../support/runTs.js";

describe("a process whose program ends", { timeout: PROCESS_DEADLINE_MS + 10_000 }, () => {
  it("error: a defect is printed with its message, and the process exits 1 though a timer is still open", async () => {
    // Without the exit after the program ends, the open timer would keep it running until the deadline.
    const result = await runTs("test/fixtures/processes/dieWithOpenTimer.ts", [], {});
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Error: the settings bucket returned nothing");
  });
});
