import { startTestDevnet } from "./devnetFixture.js";
import { startTestNats } from "./natsServer.js";
import { startReceiver } from "./webhookReceiver.js";

/**
 * What a crash test of position alerts runs against: a nats-server and the seeded devnet of its own,
 * and a receiver that leaves the first request carrying `position_alerts` unanswered (as a service
 * killed mid-delivery leaves it) and answers every other one 200. `held()` is that request's index
 * in `receiver.received`, once it has come.
 */
export const startAlertCrashEnv = async () => {
  const nats = await startTestNats();
  const devnet = await startTestDevnet();
  let held: number | undefined;
  const receiver = await startReceiver((request, res, index) => {
    if (held === undefined && request.json.position_alerts !== undefined) held = index;
    else res.writeHead(200).end();
  });
  return {
    nats,
    devnet,
    receiver,
    held: () => held,
    stop: async () => {
      await receiver.stop();
      await devnet.stop();
      await nats.stop();
    },
  };
};
