import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface Child {
  readonly process: ChildProcess;
  readonly stop: () => Promise<void>;
}

/**
 * Starts a TypeScript script in its own Node process (so the system under test
 * never shares an event loop with the load generator) and resolves once it prints
 * `ready` on stdout.
 */
export const startChild = (
  script: string,
  env: NodeJS.ProcessEnv = {},
  readyWithinMs = 60_000,
  nodeArgs: ReadonlyArray<string> = [],
  /** Told the process id at once, before it is ready (to read its CPU time while it starts). */
  onSpawn?: (pid: number) => void,
): Promise<Child> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", script], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    if (child.pid !== undefined) onSpawn?.(child.pid);
    const stop = () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once("exit", () => done());
        child.kill("SIGTERM");
      });
    const timer = setTimeout(
      () => reject(new Error(`${script} did not get ready in ${readyWithinMs / 1000} s`)),
      readyWithinMs,
    );
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      if (chunk.includes("ready")) {
        clearTimeout(timer);
        resolve({ process: child, stop });
      }
    });
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
  });
