import { describe, expect, it } from "vitest";
import { IdleWatch } from "../../../src/webhooks/notifier/IdleWatch.js";

describe("IdleWatch", () => {
  it("behavior: says idle only once every message for the whole pause time was read unread", () => {
    let now = 0;
    const watch = new IdleWatch(() => now, 1_000);
    expect(watch.unread()).toBe(false);
    now = 999;
    expect(watch.unread()).toBe(false);
    now = 1_000;
    expect(watch.unread()).toBe(true);
  });

  it("behavior: a planned message starts the idle time again", () => {
    let now = 0;
    const watch = new IdleWatch(() => now, 1_000);
    watch.unread();
    now = 900;
    watch.busy();
    now = 1_500;
    expect(watch.unread()).toBe(false);
    now = 2_499;
    expect(watch.unread()).toBe(false);
    now = 2_500;
    expect(watch.unread()).toBe(true);
  });
});
