import { readdirSync, readFileSync } from "node:fs";

const TICKS_PER_SECOND = 100;

/** CPU time (user + system) a process has used so far, in ms, from /proc (Linux). */
export const processCpuMs = (pid: number, statFile = `/proc/${pid}/stat`): number => {
  try {
    const fields = readFileSync(statFile, "utf8").split(") ")[1]!.split(" ");
    // Fields 14 and 15 (utime, stime) are the 12th and 13th after the command name.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
};

/** `processCpuMs` of each named process, ms. */
export const cpuNow = (pids: Record<string, number>): Record<string, number> =>
  Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, processCpuMs(pid)]));

/** CPU time (user + system) of this process's main thread so far, ms (Linux; its task id is the pid). */
export const mainThreadCpuMs = (): number => processCpuMs(process.pid, `/proc/self/task/${process.pid}/stat`);

/** A task's time on a CPU so far, ms, from its schedstat (nanoseconds, unlike stat's 10 ms ticks). */
const taskRunMs = (pid: number, tid: number): number => {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
  } catch {
    // The thread ended between the listing and the read.
    return 0;
  }
};

/**
 * Time a process has spent on a CPU so far, ms, to the nanosecond (Linux schedstat): every thread
 * (`all`, its thread pool and collector threads included) and its main thread alone. Precise
 * enough for one request of a few ms, where stat's 10 ms ticks are not. A thread that ended since
 * an earlier reading takes its time with it: read both ends while the process's threads live.
 */
export const processRunMs = (
  pid: number,
): { readonly all: number; readonly main: number; readonly byName: Readonly<Record<string, number>> } => {
  let all = 0;
  const byName: Record<string, number> = {};
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const ms = taskRunMs(pid, Number(task));
    all += ms;
    const name = taskName(pid, Number(task));
    byName[name] = (byName[name] ?? 0) + ms;
  }
  return { all, main: taskRunMs(pid, pid), byName };
};

/** Time each of a process's threads has spent on a CPU so far, ms, by thread id (a thread's `comm` is often just `node`). */
export const threadRunMs = (pid: number): Record<string, number> =>
  Object.fromEntries(readdirSync(`/proc/${pid}/task`).map((tid) => [tid, taskRunMs(pid, Number(tid))]));

/** A thread's name (its `comm`: libuv's pool, V8's workers, LevelDB's compaction thread...). */
const taskName = (pid: number, tid: number): string => {
  if (tid === pid) return "main";
  try {
    return readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
  } catch {
    return "ended";
  }
};

/** Per-name CPU ms between two `processRunMs` readings (a name absent before counts from 0). */
export const threadsBetween = (
  before: Readonly<Record<string, number>>,
  after: Readonly<Record<string, number>>,
): Record<string, number> =>
  Object.fromEntries(Object.entries(after).map(([name, ms]) => [name, ms - (before[name] ?? 0)]));

/** CPU ms each named process spends while `work` runs. */
export const measureCpu = async <A>(pids: Record<string, number>, work: () => Promise<A>) => {
  const before = cpuNow(pids);
  const selfBefore = process.cpuUsage();
  const result = await work();
  const self = process.cpuUsage(selfBefore);
  const cpuMs: Record<string, number> = { loadgen: (self.user + self.system) / 1000 };
  for (const [name, pid] of Object.entries(pids)) cpuMs[name] = processCpuMs(pid) - before[name]!;
  return { result, cpuMs };
};
