import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * How long a test gives one of the project's entry points, started with tsx, to do what it is asked.
 * Compiling on start takes about 3 s of CPU, which a machine whose cores are busy stretched to 30 s
 * (load 16): a deadline for correctness, not a speed promise.
 */
export const PROCESS_DEADLINE_MS = 150_000;

export interface ProcessResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs one of the project's TypeScript entry points the way npm scripts do (tsx), and collects its output. */
export const runTs = (
  script: string,
  args: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv,
  timeoutMs = PROCESS_DEADLINE_MS,
) =>
  new Promise<ProcessResult>((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${script} ${args.join(" ")} did not finish in ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
