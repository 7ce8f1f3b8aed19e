import { Effect, Runtime } from "effect";

/** Logging for Promise code that an Effect service runs. */
export interface PromiseLog {
  readonly info: (message: string, ...rest: ReadonlyArray<unknown>) => void;
  readonly warning: (message: string, ...rest: ReadonlyArray<unknown>) => void;
  readonly error: (message: string, ...rest: ReadonlyArray<unknown>) => void;
}

/**
 * Log functions for the Promise code inside an Effect service, bound to the runtime the service
 * runs in: its logger, `LOG_LEVEL` and annotations apply, as they do to its Effect code. Logging
 * through `Effect.runPromise` instead uses the default runtime, which knows none of them (a line
 * printed under `LOG_LEVEL=none`, without its role or chain).
 */
export const promiseLog: Effect.Effect<PromiseLog> = Effect.map(Effect.runtime<never>(), (runtime) => {
  const fork = Runtime.runFork(runtime);
  return {
    info: (message, ...rest) => void fork(Effect.logInfo(message, ...rest)),
    warning: (message, ...rest) => void fork(Effect.logWarning(message, ...rest)),
    error: (message, ...rest) => void fork(Effect.logError(message, ...rest)),
  };
});
