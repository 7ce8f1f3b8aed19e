import { Effect } from "effect";
import { RequestContext } from "../../RequestContext.js";

/** The caller's team id: every webhook route sees only this team's webhooks. */
export const callerTeamId = Effect.flatMap(RequestContext, ({ caller }) =>
  caller === undefined
    ? Effect.dieMessage("webhook route served without a caller")
    : Effect.succeed(caller.team.team_id),
);

/** Webhook ids are stored lower-case; the path accepts any case. */
export const normaliseId = (id: string) => id.toLowerCase();
