import { type ChildProcess, spawn } from "node:child_process";
import { freePort } from "../lib/freePort.js";
import { anvilBinaryPath } from "./anvilBinary.js";

/** How to start one anvil node. */
export interface AnvilOptions {
  /** EIP-155 chain id the node reports. */
  readonly chainId: number;
  /** Extra anvil command-line arguments (e.g. `--load-state`, `--code-size-limit`). */
  readonly args?: readonly string[];
  /** Port to listen on; a free one is picked when omitted. */
  readonly port?: number;
  /** How long to wait for the node to answer `eth_chainId`, in ms (default 60,000: big state loads take time). */
  readonly readyTimeoutMs?: number;
  /** Receives anvil's stderr lines (stdout is silenced with `--silent`). */
  readonly log?: (line: string) => void;
}

/** A running anvil node. HTTP and WebSocket JSON-RPC share one port. */
export interface AnvilInstance {
  readonly chainId: number;
  readonly port: number;
  readonly rpcUrl: string;
  readonly wsUrl: string;
  /**
   * Stops the node with SIGTERM and waits for it to exit, so a `--dump-state` file is complete when this
   * resolves. Safe to call twice.
   */
  readonly stop: () => Promise<void>;
}

/**
 * The node runs under a tiny shell watchdog that reads our stdin pipe: when this process goes away for any
 * reason (normal exit, crash, SIGKILL) the pipe closes and the watchdog SIGTERMs anvil, so no orphan node
 * survives its parent. The watchdog exits with anvil's status.
 */
const WATCHDOG_SCRIPT =
  // fd 3 keeps the pipe: POSIX sh points a background job's stdin at /dev/null before its own redirections.
  'exec 3<&0; "$0" "$@" 3<&- & child=$!; ( read _ <&3; kill -TERM $child 2>/dev/null ) & wait $child';

const STOP_TIMEOUT_MS = 60_000;

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

const installExitHook = (): void => {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const child of live) killGroup(child, "SIGTERM");
  });
};

const killGroup = (child: ChildProcess, signal: NodeJS.Signals): void => {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
};

const answersChainId = async (rpcUrl: string): Promise<boolean> => {
  try {
    const response = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
    });
    return response.ok;
  } catch {
    return false;
  }
};

const waitForExit = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });

/** Starts one anvil node on a free (or the given) port and resolves once it answers JSON-RPC. */
export const startAnvil = async (options: AnvilOptions): Promise<AnvilInstance> => {
  const port = options.port ?? (await freePort());
  const args = [
    "--port",
    String(port),
    "--chain-id",
    String(options.chainId),
    "--silent",
    ...(options.args ?? []),
  ];
  // detached: a terminal Ctrl-C must reach us, not anvil directly, so we decide when it dumps and stops.
  const child = spawn("sh", ["-c", WATCHDOG_SCRIPT, anvilBinaryPath(), ...args], {
    detached: true,
    stdio: ["pipe", "ignore", "pipe"],
  });
  live.add(child);
  installExitHook();
  const stderrLines: string[] = [];
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    for (const line of chunk.split("\n").filter((l) => l.length > 0)) {
      stderrLines.push(line);
      options.log?.(`anvil ${options.chainId}: ${line}`);
    }
  });
  const exited = waitForExit(child).then(() => {
    live.delete(child);
    child.stdin?.destroy();
  });

  const rpcUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return exited;
    stopped = true;
    child.stdin?.end();
    const timer = setTimeout(() => killGroup(child, "SIGKILL"), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };

  while (!(await answersChainId(rpcUrl))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(
        `anvil for chain ${options.chainId} did not start on port ${port}: ${stderrLines.slice(-5).join(" | ") || "no output"}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { chainId: options.chainId, port, rpcUrl, wsUrl: `ws://127.0.0.1:${port}`, stop };
};
