import { Context } from "effect";

/** What the API's handlers read of the operator's settings: links in answers and the default rate limit. */
export class ApiSettings extends Context.Tag("app/api/ApiSettings")<
  ApiSettings,
  {
    /** Base URL of logo and docs links. */
    readonly publicUrl: string;
    /** A key's rate limit where its team sets none. */
    readonly rateLimitRps: number;
    readonly rateLimitBurst: number;
  }
>() {}
