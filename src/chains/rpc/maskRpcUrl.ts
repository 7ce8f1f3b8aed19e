/**
 * An RPC URL as it may be shown in logs, status and metrics: providers put API keys in the path
 * (`/v2/<key>`, `/v3/<key>`), the query or the user info, so those parts are replaced with `***`.
 * A path segment is taken for a key when it is long or mixes letters and digits.
 */
export const maskRpcUrl = (raw: string): string => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "(invalid URL)";
  }
  const userInfo = url.username === "" && url.password === "" ? "" : "***@";
  const path = url.pathname
    .split("/")
    .map((segment) => (looksSecret(segment) ? "***" : segment))
    .join("/");
  const query = url.search === "" ? "" : "?***";
  return `${url.protocol}//${userInfo}${url.host}${path === "/" ? "" : path}${query}`;
};

const looksSecret = (segment: string): boolean =>
  segment.length >= 20 || (segment.length >= 10 && /\d/.test(segment) && /[a-z]/i.test(segment));
