import type { AdminClient } from "../AdminClient.js";

/** What App gives every screen: the client, the space it may draw in, and the input lock. */
export interface ScreenProps {
  readonly client: AdminClient;
  readonly width: number;
  /** Lines the screen may use, its status and help lines included. */
  readonly height: number;
  /** `true` while the screen reads text or a confirmation, so App's keys (1-4, q) stay off. */
  readonly onLock: (locked: boolean) => void;
}
