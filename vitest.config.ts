import { defineConfig } from "vitest/config";

/**
 * Two projects: `unit` runs pure logic with no external processes; `integration`
 * starts real nats-server and anvil processes per test file (hermetic: free ports,
 * temporary stores), so it gets long timeouts and runs files in separate forks.
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.{ts,tsx}"],
          environment: "node",
          // Unit tests first: they fail fast and need no processes.
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.{ts,tsx}"],
          environment: "node",
          pool: "forks",
          testTimeout: 60_000,
          hookTimeout: 180_000,
          // Two cores: more parallel files would only make each slower and flakier.
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
