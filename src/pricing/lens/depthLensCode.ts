import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Hex } from "viem";
import { lensCode } from "../../lib/lensCode.js";

const SOURCE = join(dirname(fileURLToPath(import.meta.url)), "PoolDepthLens.sol");

/** Runtime code of PoolDepthLens.sol, compiled on first use and cached (see `lensCode`). */
export const depthLensCode = (): Promise<Hex> => lensCode(SOURCE, "PoolDepthLens");
