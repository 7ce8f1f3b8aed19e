import autocannon from "autocannon";

export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
}

/** Closed-loop HTTP load with autocannon: no pipelining (clients do not pipeline), keep-alive on. */
export const load = (
  url: string,
  options: { connections: number; seconds: number; headers?: Record<string, string> },
) =>
  new Promise<LoadResult>((resolve, reject) => {
    autocannon(
      {
        url,
        connections: options.connections,
        duration: options.seconds,
        pipelining: 1,
        headers: options.headers ?? {},
      },
      (error: Error | null, result: autocannon.Result) => {
        if (error) return reject(error);
        resolve({
          requestsPerSecond: result.requests.average,
          p50Ms: result.latency.p50,
          p99Ms: result.latency.p99,
          non2xx: result.non2xx,
          errors: result.errors,
        });
      },
    );
  });
