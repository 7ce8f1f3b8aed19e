import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";

/** Bytes of the files under `dir` (recursively); files that vanish meanwhile (LevelDB compactions) count 0. */
export const directoryBytes = async (dir: string): Promise<number> => {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const sizes = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory()
        ? directoryBytes(join(dir, entry.name))
        : stat(join(dir, entry.name)).then(
            (s) => s.size,
            () => 0,
          ),
    ),
  );
  return sizes.reduce((a, b) => a + b, 0);
};
