import { Either } from "effect";
import { describe, expect, it } from "vitest";
import {
  parseBoolean,
  parseFilters,
  parseHistoricalPrices,
  parseLimit,
  parseMetadata,
} from "../../../src/balances/parseBalancesQuery.js";

const code = <A>(result: Either.Either<A, { code: string }>) =>
  Either.isLeft(result) ? result.left.code : "ok";

describe("balances query parameters", () => {
  it("default: omitted parameters take their defaults", () => {
    expect(parseFilters(undefined)).toEqual(Either.right(undefined));
    expect(Either.map(parseMetadata(undefined), (s) => [...s])).toEqual(Either.right([]));
    expect(parseBoolean("exclude_spam_tokens", undefined)).toEqual(Either.right(false));
    expect(parseHistoricalPrices(undefined)).toEqual(Either.right([]));
    expect(parseLimit(undefined)).toEqual(Either.right(1000));
  });

  it("args: valid values, limits above 1000 reduced, offsets kept in request order", () => {
    expect(parseFilters("native")).toEqual(Either.right("native"));
    expect(Either.map(parseMetadata("logo,pools"), (s) => [...s])).toEqual(Either.right(["logo", "pools"]));
    expect(parseBoolean("x", "TRUE")).toEqual(Either.right(true));
    expect(parseBoolean("x", "0")).toEqual(Either.right(false));
    expect(parseHistoricalPrices("720,1, 24")).toEqual(Either.right([720, 1, 24]));
    expect(parseLimit("5000")).toEqual(Either.right(1000));
    expect(parseLimit("1")).toEqual(Either.right(1));
  });

  it("behavior: a boolean flag given bare or empty means true", () => {
    expect(parseBoolean("exclude_spam_tokens", "")).toEqual(Either.right(true));
    expect(parseBoolean("exclude_spam_tokens", " ")).toEqual(Either.right(true));
  });

  it("error: a repeated historical offset is refused, also when written differently", () => {
    for (const repeated of ["24,24", "1,24,24", "24,024"]) {
      expect(code(parseHistoricalPrices(repeated)), repeated).toBe("DUPLICATE_HISTORICAL_PRICES");
    }
    expect(parseHistoricalPrices("24,24")).toEqual(
      Either.left({
        code: "DUPLICATE_HISTORICAL_PRICES",
        message: "historical_prices gives the offset 24 more than once; give each offset once.",
      }),
    );
  });

  it("error: each bad value is a 400 with its own code", () => {
    expect(code(parseFilters("erc721"))).toBe("INVALID_FILTERS");
    expect(code(parseMetadata("logo,colour"))).toBe("INVALID_METADATA");
    expect(code(parseBoolean("x", "yes"))).toBe("INVALID_BOOLEAN");
    expect(code(parseHistoricalPrices("1,2,3,4"))).toBe("TOO_MANY_HISTORICAL_PRICES");
    for (const bad of ["0", "1.5", "-1", "abc", "", "1,,2", "1e3", "87601"]) {
      expect(code(parseHistoricalPrices(bad)), bad).toBe("INVALID_HISTORICAL_PRICES");
    }
    for (const bad of ["0", "-5", "abc", "1.5", ""]) expect(code(parseLimit(bad)), bad).toBe("INVALID_LIMIT");
  });
});
