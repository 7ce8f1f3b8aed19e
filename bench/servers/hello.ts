import { createServer } from "node:http";

/** The floor: a bare node:http server answering a small JSON body. */
const body = JSON.stringify({ hello: "world" });
const server = createServer((_, res) => {
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
});
server.listen(Number(process.env.PORT), "127.0.0.1", () => process.stdout.write("ready\n"));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
