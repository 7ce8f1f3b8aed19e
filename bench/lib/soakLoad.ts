import { Pool } from "undici";
import { type Client, kinds, type Send, type SoakTarget } from "./soakMix.js";

/** Requests per kind of request, by answer: `2xx`, or the status of any other answer, or `failed`. */
export type SoakCounts = Record<string, Record<string, number>>;

/**
 * Runs `connections` closed-loop clients over the mix (or `only` some of its
 * kinds, by name) until `signal` aborts. Each request is chosen at random by weight; answers are counted per kind and
 * answer (2xx, or the status), so a run that only measured errors shows it.
 */
export const runSoakLoad = async (
  target: SoakTarget,
  options: { readonly connections: number; readonly only?: ReadonlyArray<string> },
  signal: AbortSignal,
) => {
  const connections = options.connections;
  const pool = new Pool(target.url, { connections });
  const mix = Object.entries(kinds(target)).filter(([name]) => options.only?.includes(name) ?? true);
  const total = mix.reduce((a, [, k]) => a + k.weight, 0);
  const counts: SoakCounts = {};
  const choose = () => {
    let r = Math.random() * total;
    for (const entry of mix) {
      r -= entry[1].weight;
      if (r < 0) return entry;
    }
    return mix[0]!;
  };
  const client = async (index: number) => {
    const state: Client = {
      key: target.keys[index % target.keys.length]!,
      pagingCursor: undefined,
      webhook: undefined,
    };
    const send: Send = async (method, path, body) => {
      const res = await pool.request({
        path,
        method: method as "GET",
        headers: {
          "x-svc-api-key": state.key,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.body.text();
      let json: unknown = {};
      try {
        json = JSON.parse(text);
      } catch {
        json = {};
      }
      return { status: res.statusCode, json };
    };
    while (!signal.aborted) {
      const [name, kind] = choose();
      const row = counts[name] ?? {};
      counts[name] = row;
      try {
        const { status } = await kind.run(send, state);
        const bucket = status < 300 ? "2xx" : String(status);
        row[bucket] = (row[bucket] ?? 0) + 1;
      } catch {
        row.failed = (row.failed ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, (_, i) => client(i)));
  await pool.close();
  return counts;
};
