import { defineConfig } from "vitest/config";

/**
 * Two projects: `unit` runs pure logic with no external processes; `integration`
 * starts real nats-server and anvil processes per test file (hermetic: free ports,
 * temporary stores), so it gets long timeouts and runs in forks (child processes, not threads).
 *
 * The files of each project share their worker's modules: none mocks modules or stubs globals, and
 * every file starts and stops its own servers. Importing the service's modules afresh for each
 * integration file took 500-590 s of a run's worker time, 4-5 s a file, on two cores; shared, 42 s.
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.{ts,tsx}"],
          environment: "node",
          isolate: false,
          // Property tests run thousands of cases: their time is correctness work, not a speed
          // promise, and on a machine whose cores are busy it is several times vitest's default 5 s.
          testTimeout: 60_000,
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
          isolate: false,
          // The shared devnet seed is made before any file starts, outside every hook's timeout.
          globalSetup: ["test/support/devnetSeedSetup.ts"],
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
