import { Effect, Queue, type Scope } from "effect";
import { createPublicClient, type PublicClient, type WebSocketTransport, webSocket } from "viem";

/**
 * A queue that receives a signal whenever the node announces a new head over
 * WebSocket (`eth_subscribe newHeads`). The follower also polls, so a dropped
 * or absent subscription only makes it slower, never stuck. Without a WebSocket
 * URL the queue simply never fills.
 */
export const headSignals = (
  wsUrl: string | undefined,
): Effect.Effect<Queue.Queue<void>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const queue = yield* Queue.sliding<void>(1);
    if (wsUrl === undefined) return queue;
    const transport = webSocket(wsUrl, { retryCount: 0, reconnect: { attempts: 1_000_000, delay: 1_000 } });
    const client: PublicClient<WebSocketTransport> = createPublicClient({ transport });
    const subscription = yield* Effect.promise(() =>
      client.transport
        .subscribe({
          params: ["newHeads"],
          onData: () => Queue.unsafeOffer(queue, undefined),
          // The poll loop covers for a broken subscription; the transport reconnects by itself.
          onError: () => undefined,
        })
        .catch(() => undefined),
    );
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        void subscription?.unsubscribe().catch(() => undefined);
        void (client.transport as unknown as { getRpcClient: () => Promise<{ close: () => void }> })
          .getRpcClient()
          .then((rpc) => rpc.close())
          .catch(() => undefined);
      }),
    );
    return queue;
  });
