import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { processCpuMs } from "./cpu.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

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
 * spends during the timed span.
 */
export const coldFetchAndDecode = (
  rpcUrl: string,
  blocks: { readonly untimedFrom: number; readonly from: number; readonly to: number },
  pids: Record<string, number>,
): Promise<ColdFloorRun> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "bench/servers/bareLoop.ts",
        rpcUrl,
        String(blocks.untimedFrom),
        String(blocks.from),
        String(blocks.to),
      ],
      { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] },
    );
    const cpuOf = () =>
      Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, processCpuMs(pid)]));
    let before: Record<string, number> | undefined;
    let result: ColdFloorRun | undefined;
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (line === "timing") {
        before = cpuOf();
        return;
      }
      const after = cpuOf();
      const timed = JSON.parse(line) as Omit<ColdFloorRun, "othersCpuMs">;
      result = {
        ...timed,
        othersCpuMs: Object.fromEntries(
          Object.entries(after).map(([name, ms]) => [name, ms - (before?.[name] ?? Number.NaN)]),
        ),
      };
    });
    child.once("error", reject);
    child.once("exit", (code) =>
      result !== undefined && code === 0
        ? resolve(result)
        : reject(new Error(`the cold bare loop exited with ${code} before reporting`)),
    );
  });
