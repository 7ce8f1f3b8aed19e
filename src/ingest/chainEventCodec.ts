import { createHash } from "node:crypto";
import { brotliCompressSync, brotliDecompressSync, constants, inflateRawSync } from "node:zlib";
import type { JetStreamManager } from "@nats-io/jetstream";
import { type MsgHdrs, headers as natsHeaders } from "@nats-io/transport-node";
import type { ChainBlock } from "../domain/ChainBlock.js";
import { BLOCK_BYTES_TYPE, MOST_BLOCK_BYTES, readBlockBytes, writeBlockBytes } from "./blockBytes.js";

/**
 * How chain events travel on CHAIN_EVENTS when they are large. Block messages
 * can exceed a server's max_payload (1 MiB by default; a busy mainnet block's
 * logs and calldata alone can be larger). So a body over COMPRESS_ABOVE bytes is
 * compressed (hex-heavy JSON shrinks 3-6x, a block written as bytes about 1.4x), and one still over the limit is cut
 * into parts, each its own message with its own message id.
 *
 * The parts of one event need not be consecutive in the stream: ingest processes
 * leading other chains publish to it at the same time, and a publish retried after
 * failing part-way stores the parts it had not stored after whatever came in
 * between. So each part names its event (EVENT_HEADER), ingest publishes the last
 * part only once the others are stored, and the last part names the stream
 * sequences they were stored at (EARLIER_PARTS_HEADER). Readers act on the last
 * part and read the others by sequence ({@link readSplitEvent}); a part before the
 * last is nothing to them on its own. Parts written before parts were named (no
 * EVENT_HEADER) were published back to back, and are read as consecutive around
 * the part a reader acts on; a message between them makes the event unreadable.
 */
export const COMPRESS_ABOVE = 64 * 1024;
export const ENCODING_HEADER = "Content-Encoding";
/** What the body is once decoded: absent for JSON, BLOCK_BYTES_TYPE for a block as bytes. */
export const TYPE_HEADER = "Content-Type";
export const PART_HEADER = "Svc-Part";
export const PARTS_HEADER = "Svc-Parts";
/** The event a part belongs to (the message id it was encoded with), on every part of a split event. */
export const EVENT_HEADER = "Svc-Event";
/** On the last part of a split event: the stream sequences of the parts before it, in order, comma-separated. */
export const EARLIER_PARTS_HEADER = "Svc-Part-Seqs";
/** The encoding ingest writes. `deflate`, written before, is still read: the stream may hold it. */
const BROTLI = "br";

/**
 * The most a deflated event may inflate to. A busy block's JSON is tens of MB at most; a message that
 * inflates beyond this is not one ingestion wrote, and inflating it whole would exhaust memory.
 */
const MAX_EVENT_BYTES = 256 * 1024 * 1024;

/** The most parts an event is cut into: enough for {@link MAX_EVENT_BYTES} of deflated JSON in 1 MiB parts. */
export const MAX_PARTS = 1024;

/** What reading gives for bytes that are not an event (not deflate, not JSON, too large) or parts that cannot be put together. */
export class UnreadableChainEvent {
  constructor(readonly reason: string) {}
}

/** Room left in each part for headers and protocol framing. */
const HEADROOM = 4 * 1024;

/** Bytes one stream sequence takes in EARLIER_PARTS_HEADER, at most: 16 digits and a comma. */
const SEQ_CHARS = 17;

/**
 * How many parts a body of `bytes` is cut into. Parts are cut evenly, and each is small enough
 * for the last one's room: `room` less what it needs to name the sequences of the others.
 */
const partCount = (bytes: number, room: number): number => {
  let count = Math.ceil(bytes / room);
  while (count > 1 && count < MAX_PARTS && Math.ceil(bytes / count) > room - (count - 1) * SEQ_CHARS) count++;
  return count;
};

export interface OutgoingMessage {
  readonly data: Uint8Array;
  readonly headers: MsgHdrs | undefined;
  readonly msgID: string;
}

/** A JSON event: as it is when small, else compressed; cut into parts when still too large. */
export const encodeChainEvent = (
  json: string,
  msgID: string,
  maxPayload: number,
): ReadonlyArray<OutgoingMessage> => {
  const raw = Buffer.from(json);
  if (raw.length <= COMPRESS_ABOVE) return [{ data: raw, headers: undefined, msgID }];
  return inParts(compressed(raw, constants.BROTLI_MODE_TEXT), BROTLI, msgID, maxPayload);
};

/**
 * A block event written as bytes (blockBytes.ts), compressed when large, cut into parts when still
 * too large; as JSON if the block holds a value the bytes cannot (none that ingest builds). A
 * Base-sized block (about 34 KB as bytes) is not compressed: that took ingest more CPU than writing it.
 */
export const encodeBlockEvent = (
  block: ChainBlock,
  msgID: string,
  maxPayload: number,
): ReadonlyArray<OutgoingMessage> => {
  let bytes: Buffer;
  try {
    bytes = writeBlockBytes(block);
  } catch {
    return encodeChainEvent(JSON.stringify(block), msgID, maxPayload);
  }
  return bytes.length <= COMPRESS_ABOVE
    ? inParts(bytes, undefined, msgID, maxPayload, BLOCK_BYTES_TYPE)
    : inParts(compressed(bytes, constants.BROTLI_MODE_GENERIC), BROTLI, msgID, maxPayload, BLOCK_BYTES_TYPE);
};

/**
 * Brotli at quality 1: on Base-sized blocks (98 KB of JSON) it cost ingest a third of what deflate
 * at level 1 did, the API's decompression no more, and the stored message was a sixth smaller
 * (docs/benchmarks.md, chain-scale).
 */
const compressed = (raw: Buffer, mode: number): Buffer =>
  brotliCompressSync(raw, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 1,
      [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
      [constants.BROTLI_PARAM_MODE]: mode,
    },
  });

/** `body` as one message, or parts of it, each with the headers naming its encoding and type. */
const inParts = (
  body: Uint8Array,
  encoding: string | undefined,
  msgID: string,
  maxPayload: number,
  type?: string,
): ReadonlyArray<OutgoingMessage> => {
  const count = partCount(body.length, Math.max(1024, maxPayload - HEADROOM));
  const size = Math.ceil(body.length / count);
  // Parts are named by what they hold as well: a block read again after a failed publish may
  // encode otherwise (its traces gone, say), and its parts must then be stored anew rather than
  // dropped as duplicates of the earlier encoding's, which its last part could not be read with.
  const content = count > 1 ? createHash("sha256").update(body).digest("hex").slice(0, 16) : "";
  return Array.from({ length: count }, (_, i) => {
    const h = natsHeaders();
    if (encoding !== undefined) h.set(ENCODING_HEADER, encoding);
    if (type !== undefined) h.set(TYPE_HEADER, type);
    if (count > 1) {
      h.set(PART_HEADER, String(i));
      h.set(PARTS_HEADER, String(count));
      h.set(EVENT_HEADER, msgID);
    }
    return {
      data: body.subarray(i * size, (i + 1) * size),
      headers: h,
      msgID: count > 1 ? `${msgID}:${content}:${i}` : msgID,
    };
  });
};

/**
 * The last part of a split event as it is published, once the parts before it are stored: naming
 * the stream sequences they were stored at, in order, so readers find them wherever they are.
 */
export const namingEarlierParts = (last: OutgoingMessage, seqs: ReadonlyArray<number>): OutgoingMessage => {
  const h = natsHeaders();
  for (const [name, values] of last.headers ?? []) for (const value of values) h.append(name, value);
  h.set(EARLIER_PARTS_HEADER, seqs.join(","));
  return { ...last, headers: h };
};

export interface IncomingMessage {
  readonly subject: string;
  readonly data: Uint8Array;
  readonly headers?: MsgHdrs | undefined;
}

/** A message as the stream holds it: with its sequence, where the other parts of a split event are found from. */
export interface StoredChainMessage extends IncomingMessage {
  readonly seq: number;
}

/** Reads the message at a stream sequence: `null` when the stream no longer (or does not yet) hold it. */
export type PartReader = (seq: number) => Promise<IncomingMessage | null>;

/** Reads CHAIN_EVENTS messages by sequence, from the stream's leader. */
export const chainEventsReader =
  (jsm: JetStreamManager): PartReader =>
  async (seq) => {
    const stored = await jsm.streams.getMessage("CHAIN_EVENTS", { seq });
    return stored === null ? null : { subject: stored.subject, data: stored.data, headers: stored.header };
  };

/**
 * Inflates and parses an event's whole body, as its headers say it was written; bytes that cannot be
 * an event give an {@link UnreadableChainEvent}.
 */
const decodeBody = (body: Uint8Array, headers: MsgHdrs | undefined, maxEventBytes: number): unknown => {
  const encoding = headers?.get(ENCODING_HEADER) || undefined;
  const type = headers?.get(TYPE_HEADER) || undefined;
  // A block as bytes is denser than JSON, and never larger than MOST_BLOCK_BYTES (blockBytes.ts).
  const most = type === BLOCK_BYTES_TYPE ? Math.min(maxEventBytes, MOST_BLOCK_BYTES) : maxEventBytes;
  try {
    const bytes =
      encoding === BROTLI
        ? brotliDecompressSync(body, { maxOutputLength: most })
        : encoding === "deflate"
          ? inflateRawSync(body, { maxOutputLength: most })
          : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    if (type === BLOCK_BYTES_TYPE) return readBlockBytes(bytes);
    if (type !== undefined) return new UnreadableChainEvent(`content type ${type}`);
    return JSON.parse(bytes.toString("utf8"));
  } catch (error) {
    return new UnreadableChainEvent(error instanceof Error ? error.message : String(error));
  }
};

/** One part of a split event: read whole, with the other parts, by {@link readSplitEvent}. */
export class SplitPart {
  constructor(
    readonly message: StoredChainMessage,
    readonly part: number,
    readonly parts: number,
  ) {}

  /** The event it belongs to; `undefined` on parts written before parts were named, which are consecutive. */
  get event(): string | undefined {
    return this.message.headers?.get(EVENT_HEADER) || undefined;
  }

  get isLast(): boolean {
    return this.part === this.parts - 1;
  }
}

/**
 * Where a message stands in its event: `undefined` for a whole event, its part and how many, or an
 * {@link UnreadableChainEvent} for part headers no ingest writes.
 */
const placeOf = (
  headers: MsgHdrs | undefined,
): { readonly part: number; readonly parts: number } | UnreadableChainEvent | undefined => {
  const parts = Number(headers?.get(PARTS_HEADER) || "1");
  const part = Number(headers?.get(PART_HEADER) || "0");
  if (!Number.isInteger(parts) || parts < 1 || parts > MAX_PARTS || !Number.isInteger(part))
    return new UnreadableChainEvent(`part ${part} of ${parts}`);
  if (parts === 1) return undefined;
  return part >= 0 && part < parts ? { part, parts } : new UnreadableChainEvent(`part ${part} of ${parts}`);
};

/**
 * A message as read from CHAIN_EVENTS: a whole event (its JSON, or an {@link UnreadableChainEvent}
 * for bytes that cannot be one), or a {@link SplitPart}. A whole event is decoded right away, with
 * nothing read from the stream: the indexer does this for every block.
 */
export const decodeChainEvent = (
  message: StoredChainMessage,
  maxEventBytes = MAX_EVENT_BYTES,
): unknown | SplitPart => {
  const place = placeOf(message.headers);
  if (place === undefined) return decodeBody(message.data, message.headers, maxEventBytes);
  return place instanceof UnreadableChainEvent ? place : new SplitPart(message, place.part, place.parts);
};

/**
 * The stream sequences of all of `split`'s event's parts: named on the last part, or, for parts
 * written before they were named, consecutive around `split`.
 */
const partSeqs = (split: SplitPart): ReadonlyArray<number> | UnreadableChainEvent => {
  const { message, part, parts } = split;
  if (split.event === undefined) return Array.from({ length: parts }, (_, i) => message.seq - part + i);
  const earlier = (message.headers?.get(EARLIER_PARTS_HEADER) ?? "").split(",").map(Number);
  if (!split.isLast || earlier.length !== parts - 1 || !earlier.every(Number.isSafeInteger))
    return new UnreadableChainEvent(`part ${part} of ${parts} does not name where the other parts are`);
  return [...earlier, message.seq];
};

/** Whether `other` is part `i` of the event `split` is a part of (a reader's own check: sequences can be wrong). */
const isPartOf = (other: IncomingMessage, split: SplitPart, i: number): boolean => {
  const own = split.message.headers;
  const theirs = other.headers;
  return (
    other.subject === split.message.subject &&
    theirs?.get(PART_HEADER) === String(i) &&
    theirs.get(PARTS_HEADER) === String(split.parts) &&
    theirs.get(EVENT_HEADER) === own?.get(EVENT_HEADER) &&
    theirs.get(ENCODING_HEADER) === own?.get(ENCODING_HEADER) &&
    theirs.get(TYPE_HEADER) === own?.get(TYPE_HEADER)
  );
};

/**
 * The whole event `split` is a part of, its other parts read by sequence with `read`: its JSON,
 * or an {@link UnreadableChainEvent} when a part is gone (dropped by the stream's retention) or
 * the message at a part's sequence is not that part. Rejects only when `read` does.
 */
export const readSplitEvent = async (
  split: SplitPart,
  read: PartReader,
  maxEventBytes = MAX_EVENT_BYTES,
): Promise<unknown> => {
  const seqs = partSeqs(split);
  if (seqs instanceof UnreadableChainEvent) return seqs;
  const bodies: Array<Uint8Array> = [];
  for (const [i, seq] of seqs.entries()) {
    if (i === split.part) {
      bodies.push(split.message.data);
      continue;
    }
    const other = await read(seq);
    if (other === null)
      return new UnreadableChainEvent(`part ${i} of ${split.parts} (stream sequence ${seq}) is gone`);
    if (!isPartOf(other, split, i))
      return new UnreadableChainEvent(
        `stream sequence ${seq} is not part ${i} of ${split.parts} of this event`,
      );
    bodies.push(other.data);
  }
  return decodeBody(Buffer.concat(bodies), split.message.headers, maxEventBytes);
};

/**
 * Reassembles chain events from messages read in stream order, holding the parts of a split event
 * until its last: for a reader that sees every message and the parts of an event consecutive (a
 * test reading one ingest process's stream). Returns the event's JSON once its last part has
 * arrived, `undefined` while parts are still missing; a part that does not follow its predecessor
 * (a gap) restarts assembly. The service's readers cannot assume consecutive parts and use
 * {@link decodeChainEvent} and {@link readSplitEvent} instead. Bytes that cannot be an event give
 * an {@link UnreadableChainEvent}, never a throw.
 */
export class ChainEventAssembler {
  #parts: Array<Uint8Array> = [];

  constructor(private readonly maxEventBytes = MAX_EVENT_BYTES) {}

  push(message: IncomingMessage): unknown | undefined {
    const place = placeOf(message.headers);
    if (place === undefined || place instanceof UnreadableChainEvent) {
      this.#parts = [];
      return place ?? decodeBody(message.data, message.headers, this.maxEventBytes);
    }
    if (place.part !== this.#parts.length) this.#parts = [];
    if (place.part !== this.#parts.length) return undefined;
    this.#parts.push(message.data);
    if (this.#parts.length < place.parts) return undefined;
    const body = Buffer.concat(this.#parts);
    this.#parts = [];
    return decodeBody(body, message.headers, this.maxEventBytes);
  }
}
