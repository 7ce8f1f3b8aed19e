import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import { describe, expect, it } from "vitest";
import { isRevisionConflict } from "../../../src/nats/revisionConflict.js";

const apiError = (code: number, description: string) =>
  new JetStreamApiError({ err_code: code, code: 400, description });

describe("a revision-checked KV write that lost to another writer", () => {
  it("behavior: JetStream's wrong-last-sequence errors are conflicts by their code, whatever their text", () => {
    expect(
      isRevisionConflict(apiError(JetStreamApiCodes.StreamWrongLastSequence, "wrong last sequence: 12")),
    ).toBe(true);
    expect(isRevisionConflict(apiError(JetStreamApiCodes.StreamWrongLastSequenceUnknown, "anything"))).toBe(
      true,
    );
  });

  it("edge: other JetStream errors are not conflicts, even when their text says a key or stream exists", () => {
    expect(isRevisionConflict(apiError(JetStreamApiCodes.StreamNotFound, "stream not found"))).toBe(false);
    expect(
      isRevisionConflict(
        apiError(10058, "stream name already in use with a different configuration: key exists"),
      ),
    ).toBe(false);
    expect(isRevisionConflict(new Error("key exists"))).toBe(false);
    expect(isRevisionConflict(new Error("TIMEOUT"))).toBe(false);
  });

  it("behavior: a refusal that arrives only as JetStream's description (the outbox's mux writes) is judged by it", () => {
    expect(isRevisionConflict(new Error("wrong last sequence: 651"))).toBe(true);
  });
});
