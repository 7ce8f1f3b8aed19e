/**
 * How long each pull of a consuming loop stays open on the server. The client notices a pull lost
 * with its consumer's leader (a node killed or cut off) only after two missed heartbeats, each half
 * of this: with the client's default of 30 s, a notifier or indexer sat idle for 30 s after a node
 * loss; with 5 s it asks again within about 5 s. An idle loop costs one pull request per 5 s.
 */
export const PULL_EXPIRES_MS = 5_000;
