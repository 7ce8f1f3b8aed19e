import { ConfigError, Effect, Either, Logger } from "effect";
import * as AppConfig from "./AppConfig.js";
import { runMain } from "./runtime/runMain.js";
import { service } from "./Service.js";

/** `--roles gateway,api` (or `--roles=...`) overrides ROLES. */
const rolesFlag = (argv: ReadonlyArray<string>): string | undefined => {
  const i = argv.findIndex((arg) => arg === "--roles" || arg.startsWith("--roles="));
  if (i === -1) return undefined;
  const arg = argv[i]!;
  return arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : (argv[i + 1] ?? "");
};

const program = Effect.gen(function* () {
  const settings = yield* AppConfig.appSettings;
  const flag = rolesFlag(process.argv.slice(2));
  let roles = settings.roles;
  if (flag !== undefined) {
    const parsed = AppConfig.parseRoles(flag);
    if (Either.isLeft(parsed)) return yield* Effect.fail(`--roles must be ${parsed.left} (got "${flag}").`);
    roles = parsed.right;
  }
  yield* service.pipe(
    Effect.provide(AppConfig.layer({ roles })),
    Logger.withMinimumLogLevel(settings.logLevel),
  );
}).pipe(
  Effect.catchAll((error) =>
    Effect.sync(() => {
      const lines = ConfigError.isConfigError(error)
        ? AppConfig.describeConfigError(error)
        : [typeof error === "string" ? error : ((error as { message?: string }).message ?? String(error))];
      for (const line of lines) process.stderr.write(`${line}\n`);
      process.exitCode = 1;
    }),
  ),
  Effect.provide(Logger.logFmt),
);

runMain(program);
