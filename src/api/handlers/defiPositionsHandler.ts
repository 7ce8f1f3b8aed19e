import { Effect } from "effect";
import { Unavailable } from "../../contracts/ApiError.js";
import { defiPositions } from "../../contracts/Positions.js";
import { route } from "../Handler.js";

/**
 * GET /beta/evm/defi/positions/{address}: the spec declares the endpoint
 * currently unavailable, so it answers 503 (after authentication, at 0 CU).
 */
export const defiPositionsRoute = route(defiPositions, () =>
  Effect.fail(
    new Unavailable({
      code: "ENDPOINT_UNAVAILABLE",
      message:
        "The DeFi positions endpoint is currently unavailable: it is being rebuilt for wider protocol and chain coverage.",
    }),
  ),
);
