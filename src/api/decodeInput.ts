import { Either, ParseResult, Schema } from "effect";
import { InvalidRequest } from "../contracts/ApiError.js";
import type { AnyEndpoint, EndpointInput } from "../contracts/Endpoint.js";
import type { RequestEnvelope } from "../contracts/Envelope.js";
import { plainParseIssue } from "./plainParseIssue.js";

const formatPath = (path: ReadonlyArray<PropertyKey>) =>
  path
    .map((part, i) => (typeof part === "number" ? `[${part}]` : i === 0 ? String(part) : `.${String(part)}`))
    .join("");

/**
 * First parse issue as one sentence naming where it is, e.g. `body field "type"
 * must be one of ...`; plainParseIssue words it and keeps the client's value out.
 */
const describe = (
  where: "path parameter" | "query parameter" | "body field",
  error: ParseResult.ParseError,
) => {
  const issues = ParseResult.ArrayFormatter.formatIssueSync(plainParseIssue(error.issue));
  const first = issues[0];
  if (first === undefined) return `Invalid ${where}.`;
  if (first.path.length === 0)
    return where === "body field" ? `The request body ${first.message}.` : `The ${where}s ${first.message}.`;
  const message =
    first._tag === "Unexpected"
      ? "is not a known field"
      : first._tag === "Missing"
        ? "is required"
        : first.message;
  return `${where} "${formatPath(first.path)}" ${message}.`;
};

const decodeWith = <S extends Schema.Schema.AnyNoContext>(
  schema: S,
  value: unknown,
  where: "path parameter" | "query parameter" | "body field",
  code: string,
  strict: boolean,
) =>
  Either.mapLeft(
    Schema.decodeUnknownEither(schema, { errors: "first", onExcessProperty: strict ? "error" : "ignore" })(
      value,
    ),
    (error) => new InvalidRequest({ code, message: describe(where, error) }),
  );

/**
 * Decodes an envelope into the endpoint's typed input. Unknown query parameters
 * are ignored (clients of the original API send some); unknown body fields are
 * rejected, so a typo never silently does nothing. Synchronous: it runs on every
 * request.
 */
export const decodeInput = <E extends AnyEndpoint>(
  endpoint: E,
  envelope: RequestEnvelope,
): Either.Either<EndpointInput<E>, InvalidRequest> => {
  const params = decodeWith(
    endpoint.params,
    envelope.params ?? {},
    "path parameter",
    "INVALID_PATH_PARAMETER",
    false,
  );
  if (Either.isLeft(params)) return params;
  const query = decodeWith(
    endpoint.query,
    envelope.query ?? {},
    "query parameter",
    "INVALID_QUERY_PARAMETER",
    false,
  );
  if (Either.isLeft(query)) return query;
  if (endpoint.body === undefined) {
    return Either.right({ params: params.right, query: query.right, body: undefined } as EndpointInput<E>);
  }
  if (envelope.body === undefined || envelope.body === null) {
    return Either.left(
      new InvalidRequest({ code: "MISSING_BODY", message: "This request needs a JSON body." }),
    );
  }
  return Either.map(
    decodeWith(endpoint.body, envelope.body, "body field", "INVALID_BODY", true),
    (body) => ({ params: params.right, query: query.right, body }) as EndpointInput<E>,
  );
};
