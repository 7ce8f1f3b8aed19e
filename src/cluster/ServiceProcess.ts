import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The repository, whatever the working directory: role processes run `src/main.ts` from it. */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The service running some roles in an OS process of its own, as `npm start -- --roles ...` does. */
export interface ServiceProcess {
  readonly roles: string;
  /** The running process's id (changes on `start` after a kill). */
  readonly pid: () => number | undefined;
  /** Everything it wrote to stdout and stderr since it was last started. */
  readonly output: () => string;
  /** Whether the process is running. */
  readonly running: () => boolean;
  /** "running", or how it ended ("exit code 1", "signal SIGKILL"), or "spawn failed: <reason>". */
  readonly state: () => string;
  /** Resolves once its output contains `text`; rejects if it exits first or after `timeoutMs`. */
  readonly waitFor: (text: string, timeoutMs: number) => Promise<void>;
  /** SIGTERM, then waits for the exit (SIGKILL after 10 s); resolves with the exit code. */
  readonly stop: () => Promise<number | null>;
  /** SIGKILL: a crash, nothing flushed or drained. */
  readonly kill: () => Promise<void>;
  /** Starts it again, with the same roles, environment and data directory. */
  readonly start: () => void;
}

/**
 * Runs `src/main.ts --roles <roles>` with `env` on top of this process's
 * environment, collecting its output; `onLine` hears each line (a prefix per
 * process is the caller's). Started at once.
 */
export const startServiceProcess = (
  roles: string,
  env: NodeJS.ProcessEnv,
  onLine?: (line: string) => void,
): ServiceProcess => {
  let child: ChildProcess | undefined;
  let exited: Promise<number | null> = Promise.resolve(null);
  let output = "";
  let partial = "";
  let spawnError: Error | undefined;
  const listeners = new Set<() => void>();
  const alive = () =>
    spawnError === undefined && child !== undefined && child.exitCode === null && child.signalCode === null;
  const append = (chunk: Buffer) => {
    const text = chunk.toString("utf8");
    output += text;
    if (onLine !== undefined) {
      const lines = (partial + text).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) onLine(line);
    }
    for (const listener of listeners) listener();
  };
  const start = () => {
    if (alive()) return;
    output = "";
    spawnError = undefined;
    const spawned = spawn(process.execPath, ["--import", "tsx", "src/main.ts", "--roles", roles], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child = spawned;
    spawned.once("error", (error) => {
      spawnError = error;
      for (const listener of listeners) listener();
    });
    spawned.stdout?.on("data", append);
    spawned.stderr?.on("data", append);
    exited = new Promise((resolve) => spawned.once("exit", (code) => resolve(code)));
    exited.then(() => {
      for (const listener of listeners) listener();
    });
  };
  start();
  return {
    roles,
    pid: () => child?.pid,
    output: () => output,
    running: alive,
    state: () =>
      spawnError !== undefined
        ? `spawn failed: ${spawnError.message}`
        : alive()
          ? "running"
          : child?.signalCode != null
            ? `signal ${child.signalCode}`
            : `exit code ${child?.exitCode}`,
    waitFor: (text, timeoutMs) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`--roles ${roles} did not write "${text}" within ${timeoutMs} ms:\n${output}`));
        }, timeoutMs);
        const check = () => {
          if (output.includes(text)) {
            clearTimeout(timer);
            listeners.delete(check);
            resolve();
          } else if (!alive()) {
            clearTimeout(timer);
            listeners.delete(check);
            reject(new Error(`--roles ${roles} exited before writing "${text}":\n${output}`));
          }
        };
        listeners.add(check);
        check();
      }),
    stop: async () => {
      if (!alive()) return child?.exitCode ?? null;
      child?.kill("SIGTERM");
      const timer = setTimeout(() => child?.kill("SIGKILL"), 10_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    kill: async () => {
      if (!alive()) return;
      child?.kill("SIGKILL");
      await exited;
    },
    start,
  };
};
