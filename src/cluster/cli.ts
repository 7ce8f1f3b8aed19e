import { rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { Effect } from "effect";
import { createKey } from "../api/keys/KeyStore.js";
import { openBucket } from "../nats/JetStreamSetup.js";
import { type LocalCluster, startLocalCluster } from "./LocalCluster.js";

const USAGE = `Usage: npm run cluster

Starts the scale-out topology on this machine: three nats-servers forming a
JetStream cluster (every stream and bucket with 3 replicas), two gateway+api
processes (PORT and PORT+1, default 8080 and 8081), one ingest process and the
embedded devnet, each role under its own NATS user. Prints where each is and a
demo API key; Ctrl+C stops everything.

DATA_DIR (default ./data) holds the devnet's seed (made on first use, about
35 s); the cluster's stores and the processes' data live under
DATA_DIR/cluster, emptied at every start because the devnet starts afresh.`;

const say = (line: string) => process.stdout.write(`${line}\n`);

const main = async () => {
  if (process.argv.includes("--help")) return say(USAGE);
  const dataDir = resolve(process.env.DATA_DIR ?? "./data");
  const basePort = Number(process.env.PORT ?? 8080);
  const dir = join(dataDir, "cluster");
  await rm(dir, { recursive: true, force: true });

  const { startDevnet } = await import("../devnet/Devnet.js");
  say("starting the devnet ...");
  const devnet = await startDevnet({ dataDir, log: say });
  let cluster: LocalCluster | undefined;
  let stopping = false;
  const stop = async () => {
    if (stopping) process.exit(1);
    stopping = true;
    say("stopping ...");
    await cluster?.stop();
    await devnet.stop();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);

  try {
    say("starting three nats-servers and the role processes ...");
    cluster = await startLocalCluster({
      dir,
      chainsConfig: devnet.chainsConfigPath,
      ports: [basePort, basePort + 1],
      log: (line) => {
        // Warnings and errors only: the processes' info lines would drown the summary.
        // Route errors while the peers start are expected: each server dials the others before they listen.
        if (/level=(WARN|ERROR|FATAL)|\[ERR\]|\[FTL\]/.test(line) && !line.includes("connect to route"))
          say(line);
      },
    });
    await cluster.ready(300_000);
  } catch (error) {
    await cluster?.stop();
    await devnet.stop();
    throw error;
  }

  const admin = await cluster.connectAs("admin");
  const buckets = {
    keys: await Effect.runPromise(openBucket(admin, "keys")),
    teams: await Effect.runPromise(openBucket(admin, "teams")),
  };
  const { key } = await Effect.runPromise(createKey(buckets, "demo"));
  await admin.close();

  say("");
  say("cluster ready:");
  for (const node of cluster.nats.nodes)
    say(`  nats-server ${node.name}  ${node.url}  (store ${node.storeDir})`);
  for (const api of cluster.apis)
    say(`  gateway+api ${api.name}  ${api.url}  (pid ${api.process.pid()}, data ${join(dir, api.name)})`);
  for (const [i, ingest] of cluster.ingest.entries()) say(`  ingest${i + 1}  (pid ${ingest.pid()})`);
  for (const chain of devnet.manifest.chains)
    say(`  devnet ${chain.name} (${chain.chain_id})  ${chain.rpc_url}`);
  say("");
  say(`demo API key (team demo): ${key}`);
  say(`try:  curl -s -H "X-Svc-Api-Key: ${key}" ${cluster.apis[0]?.url}/v1/account`);
  const operatorEnv = `NATS_URL=${cluster.operatorEnv.NATS_URL} NATS_CREDENTIALS_FILE=${cluster.operatorEnv.NATS_CREDENTIALS_FILE}`;
  say(`tools: ${operatorEnv} npm run tui`);
  say(`       ${operatorEnv} npm run admin -- keys list`);
  say("Ctrl+C stops everything.");
};

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
