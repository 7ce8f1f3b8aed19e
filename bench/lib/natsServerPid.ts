import { execSync } from "node:child_process";

/** The pid of the benchmark's nats-server listening on `url`'s port, to read its CPU time. */
export const natsServerPid = (url: string): number =>
  Number(
    execSync(`pgrep -f "nats-server.*-p ${url.split(":").at(-1)}"`)
      .toString()
      .trim()
      .split("\n")[0],
  );
