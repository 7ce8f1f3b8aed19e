import { Cause, Effect, Exit, Fiber } from "effect";

/**
 * Runs the program until it ends or the process gets SIGINT/SIGTERM, in which
 * case the program is interrupted so every scope's finalizers run (HTTP drain,
 * NATS drain, child processes stopped). A second signal exits at once.
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
      process.exitCode = 1;
    }
  });
};
