import { describe, expect, it } from "vitest";
import { makeTeamLabels, OTHER_TEAMS } from "../../../src/metrics/teamLabels.js";

describe("team labels of CU metrics", () => {
  it("behavior: without an allow list the first N teams charged keep their own series for good, the rest are other", () => {
    const label = makeTeamLabels([], 2);
    expect(label("acme")).toBe("acme");
    expect(label("bots")).toBe("bots");
    expect(label("late")).toBe(OTHER_TEAMS);
    // However much the first teams or the late one are charged later, nobody changes series.
    expect(label("acme")).toBe("acme");
    expect(label("late")).toBe(OTHER_TEAMS);
    // 10,000 more teams still make one series.
    const labels = new Set(Array.from({ length: 10_000 }, (_, i) => label(`team-${i}`)));
    expect(labels).toEqual(new Set([OTHER_TEAMS]));
  });

  it("behavior: with an allow list only the listed teams (any case) get their own series", () => {
    const label = makeTeamLabels(["Acme", "bots"]);
    expect(label("acme")).toBe("acme");
    expect(label("bots")).toBe("bots");
    expect(label("first-seen")).toBe(OTHER_TEAMS);
  });

  it("edge: a team literally named other cannot take a series of its own beside the bucket", () => {
    const label = makeTeamLabels([], 5);
    expect(label(OTHER_TEAMS)).toBe(OTHER_TEAMS);
    expect(label("acme")).toBe("acme");
  });
});
