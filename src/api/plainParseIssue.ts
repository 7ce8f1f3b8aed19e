import { SchemaAST as AST, Option, ParseResult } from "effect";

/**
 * Rewrites Effect Schema's parse issues into sentences a client can act on,
 * before ParseResult.ArrayFormatter turns them into messages:
 *
 * - a value outside a set of literals names every accepted value
 *   (`must be one of "transactions", "activities" or "balances" (got "balance")`),
 *   where Schema's default names only the first member it tried;
 * - a wrong type says what is expected in plain words (`must be a string`);
 * - the value given is summed up, never echoed: strings are cut to 40 characters
 *   and arrays or objects are named, not printed, so a hostile body never comes
 *   back in an error and never has to be serialised to build one.
 *
 * Messages from `message` annotations (addresses, UUIDs, refused fields) are kept.
 * Recursion follows the issue tree, whose depth the request nesting limit bounds.
 */
export const plainParseIssue = (issue: ParseResult.ParseIssue): ParseResult.ParseIssue => {
  switch (issue._tag) {
    case "Type":
      return isBareType(issue)
        ? new ParseResult.Type(
            issue.ast,
            issue.actual,
            `must be ${expected(issue.ast)} (got ${summary(issue.actual)})`,
          )
        : issue;
    case "Pointer":
      return new ParseResult.Pointer(issue.path, issue.actual, plainParseIssue(issue.issue));
    case "Refinement":
      // The value is not even of the refined type (`5` for an address): say what the refinement wants.
      if (issue.kind === "From" && isBareType(issue.issue)) {
        const message = `must be ${refinementExpected(issue.ast, issue)} (got ${summary(issue.actual)})`;
        return new ParseResult.Refinement(
          issue.ast,
          issue.actual,
          issue.kind,
          new ParseResult.Type(issue.issue.ast, issue.issue.actual, message),
        );
      }
      return new ParseResult.Refinement(issue.ast, issue.actual, issue.kind, plainParseIssue(issue.issue));
    case "Transformation":
      return new ParseResult.Transformation(
        issue.ast,
        issue.actual,
        issue.kind,
        plainParseIssue(issue.issue),
      );
    case "Composite": {
      if (isPlainUnion(issue))
        return plainUnionIssue(issue.ast as AST.Union, issue.actual, unionIssues(issue));
      const [first, ...rest] = subIssues(issue).map(plainParseIssue);
      return new ParseResult.Composite(issue.ast, issue.actual, [first!, ...rest], issue.output);
    }
    default:
      return issue;
  }
};

/**
 * A value no member of a union accepted. When the value's shape matched a member
 * and failed inside it (`chain_ids: [1, "x"]`), that inner failure is the useful
 * one; otherwise the message lists every alternative.
 */
const plainUnionIssue = (
  union: AST.Union,
  actual: unknown,
  issues: ReadonlyArray<ParseResult.ParseIssue>,
): ParseResult.ParseIssue => {
  const inner = issues.find(reachesInside);
  if (inner !== undefined) return plainParseIssue(inner);
  const accepted = members(union);
  // An optional field of one type: its own message says it best (`cannot be changed: ...`).
  if (accepted.length === 1) {
    const only = issues.find((i) => "ast" in i && i.ast === accepted[0]);
    if (only !== undefined) return plainParseIssue(only);
  }
  const alternatives = accepted.map((member) => {
    if (AST.isLiteral(member)) return literal(member.literal);
    const failed = issues.find((i) => "ast" in i && i.ast === member);
    const message = failed === undefined ? undefined : firstMessage(plainParseIssue(failed));
    return message?.startsWith("must be ") ? message.slice(8).replace(/ \(got .*\)$/, "") : expected(member);
  });
  return new ParseResult.Type(
    union,
    actual,
    `must be ${listed([...new Set(alternatives)])} (got ${summary(actual)})`,
  );
};

const subIssues = (issue: ParseResult.Composite): ReadonlyArray<ParseResult.ParseIssue> =>
  Array.isArray(issue.issues) ? issue.issues : [issue.issues as ParseResult.ParseIssue];

/** A union's failure that carries no message of its own. */
const isPlainUnion = (issue: ParseResult.Composite): boolean =>
  AST.isUnion(issue.ast) && !hasMessage(issue.ast);

/** The failures of each member of a union, nested unions (`NullOr` of a literal set) flattened. */
const unionIssues = (issue: ParseResult.Composite): ReadonlyArray<ParseResult.ParseIssue> =>
  subIssues(issue).flatMap((member) =>
    member._tag === "Composite" && isPlainUnion(member) ? unionIssues(member) : [member],
  );

/** A type mismatch with no message of its own. */
const isBareType = (issue: ParseResult.ParseIssue): issue is ParseResult.Type =>
  issue._tag === "Type" && issue.message === undefined && !hasMessage(issue.ast);

/** A refinement's wants: its `must be ...` message annotation if it has one, else its description. */
const refinementExpected = (ast: AST.Refinement, issue: ParseResult.ParseIssue): string => {
  const annotation = AST.getMessageAnnotation(ast);
  if (Option.isSome(annotation)) {
    const message = annotation.value(issue);
    if (typeof message === "string" && message.startsWith("must be ")) return message.slice(8);
  }
  return expected(ast);
};

const firstMessage = (issue: ParseResult.ParseIssue) =>
  ParseResult.ArrayFormatter.formatIssueSync(issue)[0]?.message;

/** Whether the failure lies inside the value (a field or an item), not in its outer shape. */
const reachesInside = (issue: ParseResult.ParseIssue): boolean => {
  switch (issue._tag) {
    case "Pointer":
      return true;
    case "Refinement":
    case "Transformation":
      return reachesInside(issue.issue);
    case "Composite":
      return subIssues(issue).some(reachesInside);
    default:
      return false;
  }
};

const hasMessage = (ast: AST.AST) => Option.isSome(AST.getMessageAnnotation(ast));

/**
 * Union members, nested unions flattened and `boolean` as its two literals;
 * `undefined` (an omitted optional field) is left out: JSON cannot send it.
 */
const members = (union: AST.Union): ReadonlyArray<AST.AST> =>
  union.types.flatMap((member) =>
    AST.isUnion(member)
      ? members(member)
      : AST.isUndefinedKeyword(member)
        ? []
        : AST.isBooleanKeyword(member)
          ? [new AST.Literal(true), new AST.Literal(false)]
          : [member],
  );

const literal = (value: AST.LiteralValue) =>
  typeof value === "bigint" ? String(value) : JSON.stringify(value);

/** What a schema node accepts, in plain words. */
const expected = (ast: AST.AST): string => {
  switch (ast._tag) {
    case "Literal":
      return literal(ast.literal);
    case "StringKeyword":
      return "a string";
    case "NumberKeyword":
      return "a number";
    case "BooleanKeyword":
      return "true or false";
    case "TypeLiteral":
      return "a JSON object";
    case "TupleType":
      return "an array";
    case "Union":
      return listed([...new Set(members(ast).map(expected))]);
    case "Refinement":
      return Option.getOrElse(AST.getDescriptionAnnotation(ast), () => expected(ast.from));
    case "Transformation":
      return expected(ast.from);
    case "Declaration":
    case "Suspend":
      return Option.getOrElse(AST.getDescriptionAnnotation(ast), () => String(ast));
    default:
      return String(ast);
  }
};

/** `A`, `A or B`, `one of A, B or C`. */
const listed = (alternatives: ReadonlyArray<string>) =>
  alternatives.length <= 2
    ? alternatives.join(" or ")
    : `one of ${alternatives.slice(0, -1).join(", ")} or ${alternatives.at(-1)}`;

/** The value a client sent, named without echoing it. */
const summary = (actual: unknown): string => {
  if (actual === undefined) return "nothing";
  if (actual === null) return "null";
  if (Array.isArray(actual)) return "an array";
  if (typeof actual === "string")
    return JSON.stringify(actual.length > 40 ? `${actual.slice(0, 40)}…` : actual);
  if (typeof actual === "object") return "an object";
  return String(actual).slice(0, 40);
};
