import { Data } from "effect";

/** The NATS server cannot be reached or refused us. */
export class NatsConnectionError extends Data.TaggedError("NatsConnectionError")<{
  readonly servers: string;
  readonly cause: unknown;
}> {
  override get message(): string {
    const reason = this.cause instanceof Error ? this.cause.message : String(this.cause);
    return `Cannot connect to NATS at ${this.servers}: ${reason}`;
  }
}

/** A JetStream stream or KV bucket could not be created or opened. */
export class JetStreamSetupError extends Data.TaggedError("JetStreamSetupError")<{
  readonly name: string;
  readonly cause: unknown;
}> {
  override get message(): string {
    const reason = this.cause instanceof Error ? this.cause.message : String(this.cause);
    return `Cannot set up JetStream ${this.name}: ${reason}`;
  }
}
