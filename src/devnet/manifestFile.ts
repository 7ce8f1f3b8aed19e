import { readFile, rename, writeFile } from "node:fs/promises";
import { type DevnetManifest, parseDevnetManifest } from "./DevnetManifest.js";

/** Reads and validates the manifest at `path`. */
export const readManifest = async (path: string): Promise<DevnetManifest> =>
  parseDevnetManifest(await readFile(path, "utf8"));

/** Writes `manifest` atomically (temp file + rename), so readers never see half a file. */
export const writeManifest = async (path: string, manifest: DevnetManifest): Promise<void> => {
  await writeFile(`${path}.tmp`, `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(`${path}.tmp`, path);
};
