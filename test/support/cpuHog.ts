/**
 * Runs the test suite with every core kept busy: `npm run test:hog [-- vitest arguments]`.
 *
 * Starts one busy-loop process per core (CPU_HOG_LOOPS overrides the count) at
 * normal priority, runs `vitest run` with the given arguments, and stops the
 * loops afterwards whatever happens: the suite passing or failing, Ctrl-C, or
 * this runner being killed (each loop exits once its parent is gone). A test
 * that passes only on an idle machine waits on time rather than on a condition.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";

/**
 * A loop that never sleeps. Checking its parent only every few million turns
 * keeps it busy; the check is what makes a killed runner leave no loop behind
 * (an orphan is re-parented, so its parent id changes).
 */
const BUSY_LOOP = `const parent = process.ppid;
for (let i = 1; ; i++) if (i % 5e6 === 0 && process.ppid !== parent) process.exit(0);`;

const loopCount = (): number => {
  const raw = process.env.CPU_HOG_LOOPS;
  if (raw === undefined || raw === "") return availableParallelism();
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`CPU_HOG_LOOPS must be a whole number, got "${raw}"`);
  return n;
};

const startLoops = (count: number): ReadonlyArray<ChildProcess> =>
  Array.from({ length: count }, () => spawn(process.execPath, ["-e", BUSY_LOOP], { stdio: "ignore" }));

const stopLoops = (loops: ReadonlyArray<ChildProcess>) => {
  for (const loop of loops) if (loop.exitCode === null && loop.signalCode === null) loop.kill("SIGKILL");
};

const main = () => {
  const loops = startLoops(loopCount());
  process.on("exit", () => stopLoops(loops));
  const started = Date.now();
  const vitest = fileURLToPath(new URL("../../node_modules/vitest/vitest.mjs", import.meta.url));
  const suite = spawn(process.execPath, [vitest, "run", ...process.argv.slice(2)], { stdio: "inherit" });
  // Ctrl-C reaches vitest through the terminal's process group; a signal sent to
  // this runner alone is passed on, and the loops stop when vitest is done.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => suite.kill(signal));
  suite.on("exit", (code, signal) => {
    stopLoops(loops);
    const minutes = ((Date.now() - started) / 60_000).toFixed(1);
    console.log(`\ncpu hog: ${loops.length} busy loops; suite took ${minutes} min`);
    process.exit(code ?? (signal === null ? 1 : 128));
  });
};

main();
