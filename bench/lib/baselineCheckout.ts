import { execFileSync } from "node:child_process";
import { existsSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Another commit of this repository checked out beside it (a detached git worktree sharing this
 * checkout's node_modules), so that a benchmark can run that commit's service next to this one's in
 * the same run: the two then meet the same machine, whose speed moves by half from one hour to the
 * next, and their ratio means what one figure alone cannot. `remove` takes the worktree away.
 */
export const baselineCheckout = (rev: string) => {
  const commit = execFileSync("git", ["rev-parse", "--verify", `${rev}^{commit}`], {
    cwd: ROOT,
    encoding: "utf8",
  })
    .trim()
    .slice(0, 12);
  const dir = join(tmpdir(), `svc-bench-baseline-${commit}`);
  // One left by a run that did not end well is used again (git still lists it).
  if (!existsSync(dir)) {
    execFileSync("git", ["worktree", "add", "--detach", dir, commit], { cwd: ROOT, stdio: "ignore" });
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  }
  return {
    commit,
    /** The baseline's service script, as `startServiceProcess` takes it. */
    serviceScript: join(dir, "bench/servers/service.ts"),
    remove: () => {
      execFileSync("git", ["worktree", "remove", "--force", dir], { cwd: ROOT, stdio: "ignore" });
    },
  };
};
