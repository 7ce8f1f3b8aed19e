import { execSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** The pid of the anvil serving `rpcUrl` (not the shell that watches it), to read its CPU time. */
export const anvilPid = (rpcUrl: string): number | undefined => {
  const port = new URL(rpcUrl).port;
  let candidates: Array<number>;
  try {
    candidates = execSync(`pgrep -f -- "--port ${port}"`).toString().trim().split("\n").map(Number);
  } catch {
    return undefined;
  }
  return candidates.find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "anvil";
    } catch {
      return false;
    }
  });
};
