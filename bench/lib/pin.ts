import { execFileSync } from "node:child_process";

/**
 * Pins a process and all its threads to one CPU (Linux `taskset`), so that a load generator on
 * another CPU does not share the service's core: on a 2-core machine this is the only way to see
 * what one service process serves rather than what the load generator can send.
 */
export const pinToCpu = (pid: number, cpu: number) => {
  execFileSync("taskset", ["-a", "-p", "-c", String(cpu), String(pid)], { stdio: "ignore" });
};

/** BENCH_PIN=1: the service (and its nats-server) on CPU 0, the load generator on CPU 1. */
export const pinning = process.env.BENCH_PIN === "1";
