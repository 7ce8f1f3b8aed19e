/**
 * What went wrong, in one phrase: the message of the error (unwrapping Effect's UnknownException,
 * which holds what a promise threw under `error`).
 */
export const reasonOf = (error: unknown): string => {
  const cause = error instanceof Error && "error" in error ? (error as { error: unknown }).error : error;
  return cause instanceof Error ? cause.message || cause.name : String(cause);
};

/** The first line of an error's message, at most 200 characters: for warnings shown to API clients. */
export const firstLineOf = (error: unknown): string =>
  (error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error)).slice(0, 200);
