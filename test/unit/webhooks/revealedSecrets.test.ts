import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { revealOnce } from "../../../src/webhooks/secrets/revealedSecrets.js";
import { makeSecretSealer, SealedSecretError } from "../../../src/webhooks/secrets/secretSealing.js";

/** A real sealer whose reveals are counted. */
const countingSealer = () => {
  const sealer = makeSecretSealer([randomBytes(32).toString("base64")]);
  let opened = 0;
  return {
    sealer,
    counted: {
      reveal: (stored: string, webhookId: string) => {
        opened++;
        return sealer.reveal(stored, webhookId);
      },
    },
    opened: () => opened,
  };
};

describe("revealOnce", () => {
  it("behavior: a webhook's sealed secret is decrypted once, then answered from memory", () => {
    const s = countingSealer();
    const reveal = revealOnce(s.counted);
    const stored = s.sealer.seal("whsec_one", "wh_a");
    for (let i = 0; i < 5; i++) expect(reveal.reveal(stored, "wh_a")).toBe("whsec_one");
    expect(s.opened()).toBe(1);
  });

  it("behavior: a rotated secret or another webhook is opened afresh", () => {
    const s = countingSealer();
    const reveal = revealOnce(s.counted);
    expect(reveal.reveal(s.sealer.seal("whsec_one", "wh_a"), "wh_a")).toBe("whsec_one");
    expect(reveal.reveal(s.sealer.seal("whsec_two", "wh_a"), "wh_a")).toBe("whsec_two");
    expect(reveal.reveal(s.sealer.seal("whsec_one", "wh_b"), "wh_b")).toBe("whsec_one");
    expect(s.opened()).toBe(3);
  });

  it("error: a value sealed for another webhook still fails every time, never answered from memory", () => {
    const s = countingSealer();
    const reveal = revealOnce(s.counted);
    const stored = s.sealer.seal("whsec_one", "wh_a");
    expect(reveal.reveal(stored, "wh_a")).toBe("whsec_one");
    expect(() => reveal.reveal(stored, "wh_b")).toThrow(SealedSecretError);
    expect(() => reveal.reveal(stored, "wh_b")).toThrow(SealedSecretError);
  });
});
