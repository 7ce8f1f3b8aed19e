import { describe, expect, it } from "vitest";
import { ActorRegistry, type DeliveryPorts } from "../../../src/webhooks/actors/ActorRegistry.js";
import { WebhookRecord } from "../../../src/webhooks/WebhookRecord.js";
import { webhookRecord } from "../../support/webhookRecordFixture.js";

const record = (id: string, fields: Partial<WebhookRecord> = {}) =>
  new WebhookRecord({
    ...webhookRecord({ id, team_id: "01TEAMREGISTRY000000000000", name: "r" }),
    ...fields,
  });

const clock = { now: () => 0 };

describe("ActorRegistry", () => {
  it("behavior: a newer version reaches the actor, an older or equal one is ignored", () => {
    const actors = new ActorRegistry(clock, undefined);
    actors.observe({ record: record("w1"), revision: 5 });
    actors.observe({ record: record("w1", { url: "https://old.example.com/x" }), revision: 4 });
    expect(actors.versionOf("w1")?.revision).toBe(5);
    actors.observe({ record: record("w1", { active: false }), revision: 6 });
    expect(actors.stateOf("w1")).toBe("inactive");
    expect(actors.versionOf("w1")?.revision).toBe(6);
    expect([...actors.revisions()]).toEqual([["w1", 6]]);
    actors.stopAll();
  });

  it("behavior: a deleted webhook's actor stops, its outbox entries are dropped once, and a late read does not restart it", () => {
    const dropped: Array<string> = [];
    const delivery = { deleted: (id: string) => dropped.push(id) } as unknown as DeliveryPorts;
    const actors = new ActorRegistry(clock, delivery);
    actors.observe({ record: record("w2"), revision: 1 });
    actors.forget("w2");
    actors.forget("w2");
    actors.observe({ record: record("w2"), revision: 2 });
    expect(actors.stateOf("w2")).toBeUndefined();
    expect(actors.size).toBe(0);
    expect(dropped).toEqual(["w2"]);
  });
});
