import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { cpuNow } from "./cpu.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Longer than any catch-up the ingest benchmarks time (500-transfer blocks take anvil seconds each). */
const TIMEOUT_MS = 10 * 60_000;

/** The cold floor's timed span: its wall time, its own CPU, the events it decoded, and `pids`' CPU meanwhile. */
export interface ColdFloorRun {
  readonly ms: number;
  readonly cpuMs: number;
  readonly events: number;
  readonly othersCpuMs: Record<string, number>;
}

/**
 * The bare fetch-and-decode loop run in a new process (`bench/servers/bareLoop.ts`): blocks
 * `untimedFrom`..`from - 1` untimed, then `from`..`to` timed, with the CPU each of `pids` (anvil)
 * spends during the timed span. Blocks are read with their traces on chain 1 unless `chain` says otherwise.
 * `loop` runs another loop of the same arguments and output instead (encodeLoop.ts), with `env` added.
 */
export const coldFetchAndDecode = (
  rpcUrl: string,
  blocks: { readonly untimedFrom: number; readonly from: number; readonly to: number },
  pids: Record<string, number>,
  chain: { readonly chainId: number; readonly traces: boolean } = { chainId: 1, traces: true },
  loop: { readonly script?: string; readonly env?: NodeJS.ProcessEnv } = {},
): Promise<ColdFloorRun> =>
  new Promise((resolve, reject) => {
    const script = loop.script ?? "bench/servers/bareLoop.ts";
    const child = spawn(
      process.execPath,
      [
        // The floor runs with the service processes' flags: a ratio of the two compares like with like.
        ...(process.env.BENCH_SERVICE_NODE_FLAGS?.split(" ").filter((f) => f !== "") ?? []),
        "--import",
        "tsx",
        script,
        rpcUrl,
        String(blocks.untimedFrom),
        String(blocks.from),
        String(blocks.to),
        String(chain.chainId),
        chain.traces ? "traces" : "no-traces",
      ],
      { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, ...loop.env } },
    );
    let before: Record<string, number> | undefined;
    let result: ColdFloorRun | undefined;
    let failure: Error | undefined;
    // A stuck node would otherwise hold the whole benchmark run.
    const timer = setTimeout(() => {
      failure = new Error(`${script} did not finish in ${TIMEOUT_MS / 1000} s`);
      child.kill("SIGKILL");
    }, TIMEOUT_MS);
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (line === "timing") {
        before = cpuNow(pids);
        return;
      }
      const after = cpuNow(pids);
      try {
        const timed = JSON.parse(line) as Omit<ColdFloorRun, "othersCpuMs">;
        if (typeof timed.ms !== "number" || typeof timed.cpuMs !== "number") throw new Error("not a result");
        result = {
          ...timed,
          othersCpuMs: Object.fromEntries(
            Object.entries(after).map(([name, ms]) => [name, ms - (before?.[name] ?? Number.NaN)]),
          ),
        };
      } catch {
        failure ??= new Error(`${script} printed an unexpected line: ${line.slice(0, 200)}`);
      }
    });
    child.once("error", reject);
    // "close", not "exit": the result line may still be on its way when the process has exited.
    child.once("close", (code) => {
      clearTimeout(timer);
      if (failure !== undefined) reject(failure);
      else if (result !== undefined && code === 0) resolve(result);
      else reject(new Error(`${script} exited with ${code} before reporting`));
    });
  });
