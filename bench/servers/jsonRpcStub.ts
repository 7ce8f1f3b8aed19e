import { createServer } from "node:http";

/**
 * A JSON-RPC node that answers at once, for timing the client side alone: `eth_call` with a
 * 40-word result (a sweep batch's size), `eth_blockNumber` and `eth_chainId` with numbers, the
 * head block with its header fields. Run in a process of its own, so its CPU is not the client's.
 */
const CALL_RESULT = `0x${"00".repeat(32 * 40)}`;
const HEAD = {
  number: "0x10",
  hash: `0x${"11".repeat(32)}`,
  parentHash: `0x${"22".repeat(32)}`,
  timestamp: "0x1",
};
const resultOf = (method: string): unknown =>
  method === "eth_blockNumber"
    ? "0x10"
    : method === "eth_chainId"
      ? "0x7a69"
      : method === "eth_getBlockByNumber"
        ? HEAD
        : CALL_RESULT;

const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  const chunks: Array<Buffer> = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const message = JSON.parse(Buffer.concat(chunks).toString("utf8")) as
      | { id: unknown; method: string }
      | Array<{ id: unknown; method: string }>;
    const reply = (m: { id: unknown; method: string }) => ({
      jsonrpc: "2.0",
      id: m.id,
      result: resultOf(m.method),
    });
    const body = JSON.stringify(Array.isArray(message) ? message.map(reply) : reply(message));
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(Number(process.env.PORT), "127.0.0.1", () => process.stdout.write("ready\n"));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
