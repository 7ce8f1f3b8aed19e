import { connect } from "@nats-io/transport-node";

/** The bus floor: a nats.js replier answering a constant, in a process of its own. */
const { url, credentials } = JSON.parse(process.env.BENCH_NATS ?? "{}") as {
  url: string;
  credentials: Record<string, string>;
};
const nc = await connect({ servers: url, user: "api", pass: credentials.api ?? "" });
const reply = JSON.stringify({ hello: "world" });
nc.subscribe("svc.bench.echo", {
  callback: (_, msg) => {
    msg.respond(reply);
  },
});
await nc.flush();
process.stdout.write("ready\n");
process.on("SIGTERM", () => nc.drain().then(() => process.exit(0)));
