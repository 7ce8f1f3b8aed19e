import { createHash } from "node:crypto";

const escapeXml = (text: string) =>
  text.replace(
    /[<>&"']/g,
    (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]!,
  );

/**
 * A logo for a token that has none configured: a disc coloured from the token's
 * address with up to four characters of its symbol, as a small SVG. The same
 * token always gets the same image.
 */
export const generatedLogo = (seed: string, symbol: string | null): string => {
  const digest = createHash("sha256").update(seed).digest();
  const hue = ((digest[0]! << 8) | digest[1]!) % 360;
  const label = escapeXml(
    Array.from((symbol ?? "?").replace(/[^\p{L}\p{N}$]/gu, ""))
      .slice(0, 4)
      .join("")
      .toUpperCase() || "?",
  );
  const size = label.length <= 2 ? 26 : label.length === 3 ? 20 : 16;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><circle cx="32" cy="32" r="32" fill="hsl(${hue},55%,45%)"/><text x="32" y="32" dy=".35em" text-anchor="middle" font-family="Helvetica,Arial,sans-serif" font-size="${size}" font-weight="700" fill="#fff">${label}</text></svg>`;
};

/** A strong validator for the image, so browsers and CDNs can revalidate cheaply. */
export const etagOf = (body: string) =>
  `"${createHash("sha256").update(body).digest("base64url").slice(0, 16)}"`;
