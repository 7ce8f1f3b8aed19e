import { join } from "node:path";

/** The process's LevelDB lives here; every role of the process uses it through key prefixes. */
export const levelPath = (dataDir: string): string => join(dataDir, "leveldb");
