import { brotliCompressSync, brotliDecompressSync, constants, inflateRawSync } from "node:zlib";
import { type MsgHdrs, headers as natsHeaders } from "@nats-io/transport-node";

/**
 * How chain events travel on CHAIN_EVENTS when they are large. Block messages
 * can exceed a server's max_payload (1 MiB by default; a busy mainnet block's
 * logs and calldata alone can be larger). So a body over COMPRESS_ABOVE bytes is
 * compressed (hex-heavy JSON shrinks 3-6x), and one still over the limit is cut
 * into consecutive parts, each its own message with its own message id. Parts
 * of one event are published back to back on one connection, so a consumer
 * reading the stream in order sees them together and reassembles them.
 */
export const COMPRESS_ABOVE = 64 * 1024;
export const ENCODING_HEADER = "Content-Encoding";
export const PART_HEADER = "Svc-Part";
export const PARTS_HEADER = "Svc-Parts";
/** The encoding ingest writes. `deflate`, written before, is still read: the stream may hold it. */
const BROTLI = "br";

/**
 * The most a deflated event may inflate to. A busy block's JSON is tens of MB at most; a message that
 * inflates beyond this is not one ingestion wrote, and inflating it whole would exhaust memory.
 */
const MAX_EVENT_BYTES = 256 * 1024 * 1024;

/** The most parts an event is cut into: enough for {@link MAX_EVENT_BYTES} of deflated JSON in 1 MiB parts. */
export const MAX_PARTS = 1024;

/** What the assembler returns for bytes that are not an event: not deflate, not JSON, or too large. */
export class UnreadableChainEvent {
  constructor(readonly reason: string) {}
}

/** Room left in each part for headers and protocol framing. */
const HEADROOM = 4 * 1024;

export interface OutgoingMessage {
  readonly data: Uint8Array;
  readonly headers: MsgHdrs | undefined;
  readonly msgID: string;
}

export const encodeChainEvent = (
  json: string,
  msgID: string,
  maxPayload: number,
): ReadonlyArray<OutgoingMessage> => {
  const raw = Buffer.from(json);
  if (raw.length <= COMPRESS_ABOVE) return [{ data: raw, headers: undefined, msgID }];
  // Brotli at quality 1: on Base-sized blocks (98 KB of JSON) it costs ingest a third of what
  // deflate at level 1 did, the API's decompression no more, and the stored message is a sixth
  // smaller (docs/benchmarks.md, chain-scale).
  const body = brotliCompressSync(raw, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 1,
      [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    },
  });
  const room = Math.max(1024, maxPayload - HEADROOM);
  const count = Math.ceil(body.length / room);
  return Array.from({ length: count }, (_, i) => {
    const h = natsHeaders();
    h.set(ENCODING_HEADER, BROTLI);
    if (count > 1) {
      h.set(PART_HEADER, String(i));
      h.set(PARTS_HEADER, String(count));
    }
    return {
      data: body.subarray(i * room, (i + 1) * room),
      headers: h,
      msgID: count > 1 ? `${msgID}:${i}` : msgID,
    };
  });
};

export interface IncomingMessage {
  readonly subject: string;
  readonly data: Uint8Array;
  readonly headers?: MsgHdrs | undefined;
}

/**
 * Reassembles chain events from messages read in stream order: returns the
 * event's JSON once its last part has arrived, `undefined` while parts are still
 * missing. A part that does not follow its predecessor (a gap) restarts assembly.
 * Bytes that cannot be an event give an {@link UnreadableChainEvent}, never a throw.
 */
export class ChainEventAssembler {
  #parts: Array<Uint8Array> = [];

  constructor(private readonly maxEventBytes = MAX_EVENT_BYTES) {}

  push(message: IncomingMessage): unknown | undefined {
    const encoding = message.headers?.get(ENCODING_HEADER);
    const parts = Number(message.headers?.get(PARTS_HEADER) || "1");
    const part = Number(message.headers?.get(PART_HEADER) || "0");
    if (!Number.isInteger(parts) || parts < 1 || parts > MAX_PARTS || !Number.isInteger(part)) {
      this.#parts = [];
      return new UnreadableChainEvent(`part ${part} of ${parts}`);
    }
    if (parts > 1) {
      if (part !== this.#parts.length) this.#parts = [];
      if (part !== this.#parts.length) return undefined;
      this.#parts.push(message.data);
      if (this.#parts.length < parts) return undefined;
    }
    const body = parts > 1 ? Buffer.concat(this.#parts) : message.data;
    this.#parts = [];
    try {
      const text = (
        encoding === BROTLI
          ? brotliDecompressSync(body, { maxOutputLength: this.maxEventBytes })
          : encoding === "deflate"
            ? inflateRawSync(body, { maxOutputLength: this.maxEventBytes })
            : Buffer.from(body)
      ).toString("utf8");
      return JSON.parse(text);
    } catch (error) {
      return new UnreadableChainEvent(error instanceof Error ? error.message : String(error));
    }
  }
}
