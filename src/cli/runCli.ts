import { Effect, type Scope } from "effect";

/** Writes one line to stdout. */
export const print = (line: string) => Effect.sync(() => process.stdout.write(`${line}\n`));

const fail = (message: string) =>
  Effect.sync(() => {
    process.stderr.write(`${message}\n`);
    process.exitCode = 1;
  });

/**
 * Runs a command-line entry point: a failure, or a defect, ends it with its message on stderr and
 * exit code 1, never a stack trace (an operator reads the sentence; the code is what scripts test).
 */
export const runCli = <E>(main: Effect.Effect<void, E, Scope.Scope>): Promise<void> =>
  Effect.runPromise(
    main.pipe(
      Effect.scoped,
      Effect.catchAll((error) => fail((error as { message?: string }).message ?? String(error))),
      Effect.catchAllDefect((defect) => fail(defect instanceof Error ? defect.message : String(defect))),
    ),
  );
