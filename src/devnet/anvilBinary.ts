import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * Absolute path of the anvil binary shipped by `@foundry-rs/anvil`'s platform package.
 * Resolved through the package, never a fixed path, so it works from any checkout.
 */
export const anvilBinaryPath = (): string => {
  const require = createRequire(import.meta.url);
  const packageJson = require.resolve("@foundry-rs/anvil-linux-amd64/package.json");
  return join(dirname(packageJson), "bin", "anvil");
};
