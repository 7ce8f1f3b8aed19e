import { type ChildProcess, spawn } from "node:child_process";
import { PROCESS_DEADLINE_MS, REPO_ROOT } from "./runTs.js";

/** The service running some roles in an OS process of its own, as `npm start -- --roles ...` does. */
export interface RoleProcess {
  /** Everything it wrote to stdout and stderr so far. */
  readonly output: () => string;
  /** Resolves once its output contains `text`; rejects if it exits first or after `timeoutMs`. */
  readonly waitFor: (text: string, timeoutMs?: number) => Promise<void>;
  /** SIGTERM, then waits for the exit (SIGKILL after 10 s); resolves with the exit code. */
  readonly stop: () => Promise<number | null>;
}

/** Starts `src/main.ts --roles <roles>` with `env` on top of this process's environment. */
export const startRoleProcess = (roles: string, env: NodeJS.ProcessEnv): RoleProcess => {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "src/main.ts", "--roles", roles], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer) => {
    output += chunk.toString("utf8");
    for (const listener of listeners) listener();
  };
  child.stdout?.on("data", append);
  child.stderr?.on("data", append);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  exited.then(() => {
    for (const listener of listeners) listener();
  });
  return {
    output: () => output,
    waitFor: (text, timeoutMs = PROCESS_DEADLINE_MS) =>
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
          } else if (child.exitCode !== null || child.signalCode !== null) {
            clearTimeout(timer);
            listeners.delete(check);
            reject(new Error(`--roles ${roles} exited before writing "${text}":\n${output}`));
          }
        };
        listeners.add(check);
        check();
      }),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
};
