import { describe, expect, it } from "vitest";
import { createActor, SimulatedClock } from "xstate";
import { lifecycleOf, webhookMachine } from "../../../src/webhooks/actors/webhookMachine.js";
import { webhookRecord } from "../../support/webhookRecordFixture.js";

const record = (active: boolean, name = "hook") => webhookRecord({ active, name });

const start = (active: boolean, revision = 1) => {
  const clock = new SimulatedClock();
  clock.set(1_000);
  const actor = createActor(webhookMachine, { input: { record: record(active), revision, clock }, clock });
  actor.start();
  return { actor, clock, state: () => lifecycleOf(actor.getSnapshot().value) };
};

describe("webhookMachine", () => {
  it("default: starts in the stored state, delivery reading its queue under active", () => {
    const { actor, state } = start(true);
    expect(actor.getSnapshot().value).toEqual({ active: { delivery: "sending" } });
    expect(state()).toBe("active");
    expect(actor.getSnapshot().context.statusChangedAt).toBe(1_000);
    expect(start(false).state()).toBe("inactive");
  });

  it("behavior: deactivate and activate move between states, stamped with the injected clock", () => {
    const { actor, clock, state } = start(true);
    clock.increment(5_000);
    actor.send({ type: "webhook.deactivate", record: record(false), revision: 2 });
    expect(state()).toBe("inactive");
    expect(actor.getSnapshot().context).toMatchObject({ revision: 2, statusChangedAt: 6_000 });
    clock.increment(60_000);
    actor.send({ type: "webhook.activate", record: record(true), revision: 3 });
    expect(actor.getSnapshot().value).toEqual({ active: { delivery: "sending" } });
    expect(actor.getSnapshot().context).toMatchObject({ revision: 3, statusChangedAt: 66_000 });
  });

  it("behavior: stale or repeated events change nothing; updates adopt the newer record only", () => {
    const { actor, clock, state } = start(true, 5);
    actor.send({ type: "webhook.deactivate", record: record(false), revision: 4 });
    expect(state()).toBe("active");
    expect(actor.getSnapshot().context.revision).toBe(5);
    clock.increment(10);
    actor.send({ type: "webhook.activate", record: record(true, "renamed"), revision: 6 });
    expect(state()).toBe("active");
    expect(actor.getSnapshot().context).toMatchObject({ revision: 6, statusChangedAt: 1_000 });
    actor.send({ type: "webhook.updated", record: record(true, "again"), revision: 7 });
    actor.send({ type: "webhook.updated", record: record(true, "older"), revision: 6 });
    expect(actor.getSnapshot().context.record.name).toBe("again");
  });

  it("behavior: no timers: a day of simulated time moves nothing; delete is final", () => {
    const { actor, clock, state } = start(false);
    clock.increment(24 * 3600_000);
    expect(state()).toBe("inactive");
    actor.send({ type: "webhook.delete" });
    expect(state()).toBe("deleted");
    expect(actor.getSnapshot().status).toBe("done");
  });
});
