import { Data } from "effect";

/** The devnet could not be seeded, started or described; `message` says which step and why. */
export class DevnetError extends Data.TaggedError("DevnetError")<{
  readonly reason: "SeedFailed" | "StartFailed" | "ManifestUnreadable";
  readonly detail: string;
  readonly cause?: unknown;
}> {
  override get message(): string {
    const what = {
      SeedFailed: "seeding the devnet failed",
      StartFailed: "starting the devnet failed",
      ManifestUnreadable: "the devnet manifest could not be read",
    }[this.reason];
    return `${what}: ${this.detail}`;
  }
}
