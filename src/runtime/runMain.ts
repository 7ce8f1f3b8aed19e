import { Cause, Effect, Exit, Fiber } from "effect";

/**
 * How long a process whose program has ended (finalizers run) may go on for whatever it still has
 * open before it exits anyway: a socket or timer some library left behind must not keep a process
 * that failed to start running, answering nothing, where a supervisor would restart it.
 */
export const EXIT_GRACE_MS = 2_000;

/**
 * Runs the program until it ends or the process gets SIGINT/SIGTERM, in which
 * case the program is interrupted so every scope's finalizers run (HTTP drain,
 * NATS drain, child processes stopped). A second signal exits at once. Once the
 * program has ended the process exits, after EXIT_GRACE_MS at the latest.
 */
export const runMain = <E>(program: Effect.Effect<void, E>): void => {
  const fiber = Effect.runFork(program);
  let signalled = false;
  const onSignal = () => {
    if (signalled) process.exit(130);
    signalled = true;
    Effect.runFork(Fiber.interrupt(fiber));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  fiber.addObserver((exit) => {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    if (Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause)) {
      // Expected failures are said by the program itself; what reaches here is a defect (a bug, or
      // a library throwing), which would otherwise end the process without a word.
      process.stderr.write(`${Cause.pretty(exit.cause)}\n`);
      process.exitCode = 1;
    }
    // Unreferenced: a process with nothing left open exits at once, as before.
    setTimeout(() => process.exit(), EXIT_GRACE_MS).unref();
  });
};
