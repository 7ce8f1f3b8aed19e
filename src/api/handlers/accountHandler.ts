import { Effect } from "effect";
import { account } from "../../contracts/Account.js";
import { UsageBook } from "../../usage/UsageBook.js";
import { ApiSettings } from "../ApiSettings.js";
import { route } from "../Handler.js";
import { RequestContext } from "../RequestContext.js";

/** GET /v1/account: who the key belongs to, its limits and this month's usage. 0 CU. */
export const accountRoute = route(account, () =>
  Effect.gen(function* () {
    const { caller } = yield* RequestContext;
    const config = yield* ApiSettings;
    const book = yield* UsageBook;
    if (caller === undefined) return yield* Effect.dieMessage("account route served without a caller");
    const limit = caller.key.rate_limit;
    return {
      cu: 0,
      body: {
        team_id: caller.team.team_id,
        team_name: caller.team.name,
        key_id: caller.key.key_id,
        rate_limit: {
          requests_per_second: limit?.requests_per_second ?? config.rateLimitRps,
          burst: limit?.burst ?? config.rateLimitBurst,
        },
        monthly_cu_quota: caller.team.monthly_cu_quota,
        cu_used_this_month: book.monthToDate(caller.team.team_id),
      },
    };
  }),
);
