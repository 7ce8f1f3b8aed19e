import { Pool } from "undici";
import type { RpcCall, RpcResponse } from "./jsonRpc.js";

/** What upstream said to a raw POST, kept as it came so the proxy can pass it on untouched. */
export interface RawReply {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/**
 * The anvil behind the proxy, over a keep-alive pool: a connection per request would make the proxy,
 * not the node, the slow part of every test that goes through it.
 */
export class Upstream {
  private readonly pool: Pool;
  private readonly path: string;
  private nextId = 0;

  constructor(
    target: string,
    private readonly onCall: () => void,
  ) {
    const url = new URL(target);
    this.pool = new Pool(url.origin, { connections: 64, keepAliveTimeout: 30_000 });
    this.path = `${url.pathname}${url.search}`;
  }

  async post(body: string): Promise<RawReply> {
    this.onCall();
    const reply = await this.pool.request({
      path: this.path,
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    const contentType = reply.headers["content-type"];
    return {
      status: reply.statusCode,
      contentType: typeof contentType === "string" ? contentType : "application/json",
      body: await reply.body.text(),
    };
  }

  /** One call with a private id, so a lookup of the proxy's own never collides with a client's. */
  async call(method: string, params: ReadonlyArray<unknown>): Promise<RpcResponse> {
    const id = `proxy-${this.nextId++}`;
    const reply = await this.post(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return JSON.parse(reply.body) as RpcResponse;
  }

  /** The result of a call, or an Error carrying upstream's message. */
  async result(method: string, params: ReadonlyArray<unknown>): Promise<unknown> {
    const response = await this.call(method, params);
    if ("error" in response) throw new Error(`upstream ${method}: ${response.error.message}`);
    return response.result;
  }

  /**
   * Sends calls as one request (a batch when there are several) and returns the reply to each in the
   * order given, undefined for notifications. Ids are replaced on the way so duplicates and nulls in
   * a client's batch still map back to the right element.
   */
  async send(calls: ReadonlyArray<RpcCall>): Promise<Array<RpcResponse | undefined>> {
    const keys = calls.map((call) => ("id" in call ? `proxy-${this.nextId++}` : undefined));
    const sent = calls.map((call, i) => (keys[i] === undefined ? call : { ...call, id: keys[i] }));
    const reply = await this.post(JSON.stringify(sent.length === 1 ? sent[0] : sent));
    const parsed = reply.body.length > 0 ? (JSON.parse(reply.body) as unknown) : [];
    const responses = (Array.isArray(parsed) ? parsed : [parsed]) as RpcResponse[];
    const byKey = new Map(responses.map((response) => [String(response.id), response]));
    return keys.map((key) => (key === undefined ? undefined : byKey.get(key)));
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
