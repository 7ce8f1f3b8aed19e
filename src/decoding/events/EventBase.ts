/** Fields every decoded event carries: which contract emitted it and where it sits in the block. */
export interface EventBase {
  /** Contract that emitted the log, lower case. */
  readonly address: string;
  /** Position of the log in its block. */
  readonly logIndex: number;
  /** Position of the emitting transaction in its block. */
  readonly transactionIndex: number;
  readonly transactionHash: string;
}
