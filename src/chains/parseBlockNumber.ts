import { Either } from "effect";

/** Why a `block_number` value is refused: a 400 with this code and sentence. */
export interface BlockNumberError {
  readonly code: "INVALID_BLOCK_NUMBER";
  readonly message: string;
}

const refuse = (message: string): Either.Either<never, BlockNumberError> =>
  Either.left({ code: "INVALID_BLOCK_NUMBER", message });

const shown = (raw: string) => JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw);

/**
 * `block_number`: the height of the block to answer at, in decimal digits (`19000000`); omitted
 * means the head. One spelling only, the one responses carry: a hex value (`0x12a05f2`, as
 * JSON-RPC writes heights) is refused with its decimal value in the message rather than read
 * either way, and so are signs, fractions, exponents and blanks. Leading zeros are harmless.
 * Heights above Number.MAX_SAFE_INTEGER are refused: no chain comes near, and above it two
 * heights could read as one.
 */
export const parseBlockNumber = (
  raw: string | undefined,
): Either.Either<number | undefined, BlockNumberError> => {
  if (raw === undefined) return Either.right(undefined);
  const value = raw.trim();
  if (value === "")
    return refuse(
      "block_number must be a block height in decimal digits, e.g. 19000000 (got an empty value).",
    );
  if (/^0x[0-9a-f]+$/i.test(value)) {
    const decimal = value.length <= 15 ? Number.parseInt(value.slice(2), 16) : undefined;
    return refuse(
      `block_number takes decimal digits, not hex${decimal === undefined ? "" : `: give ${decimal} for ${value}`} (got ${shown(raw)}).`,
    );
  }
  if (/^-[0-9]+$/.test(value)) return refuse(`block_number cannot be negative (got ${shown(raw)}).`);
  if (!/^[0-9]+$/.test(value))
    return refuse(
      `block_number must be a block height in decimal digits, e.g. 19000000 (got ${shown(raw)}).`,
    );
  const digits = value.replace(/^0+(?=.)/, "");
  const height = digits.length > 16 ? Number.POSITIVE_INFINITY : Number(digits);
  if (!Number.isSafeInteger(height))
    return refuse(
      `block_number ${shown(raw)} is higher than any chain will reach; it can be at most ${Number.MAX_SAFE_INTEGER}.`,
    );
  return Either.right(height);
};
