#!/usr/bin/env node
// Adds to package-lock.json the platform-specific optional packages (other
// operating systems and CPUs) that the package registry reachable here does not
// serve. npm leaves them out of the lock when it cannot fetch them, and `npm ci`
// then refuses the lock as out of sync. Each entry carries the os/cpu/libc of its
// platform, so npm skips it on every other machine, exactly as with a complete
// lock. Run after any change to dependencies: `node .ci/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from "node:fs";

const path = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(path, "utf8"));
const packages = lock.packages;

const CPUS = { x64: "x64", amd64: "x64", arm64: "arm64", arm: "arm", ia32: "ia32" };
const OSES = ["android", "darwin", "linux", "win32", "freebsd", "openbsd", "sunos", "aix"];

/** os, cpu and libc from a platform package's name, e.g. `cli-linux-x64-musl`, `anvil-darwin-amd64`. */
const platformOf = (name) => {
  const parts = name.split("/").pop().split("-");
  const os = parts.find((p) => OSES.includes(p));
  const cpu = parts.map((p) => CPUS[p]).find(Boolean);
  if (os === undefined || cpu === undefined) return undefined;
  const libc = os === "linux" ? (parts.includes("musl") ? "musl" : "glibc") : undefined;
  return { os, cpu, libc };
};

let added = 0;
for (const [location, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (packages[key] !== undefined) continue;
    const platform = platformOf(name);
    if (platform === undefined) continue;
    packages[key] = {
      version,
      cpu: [platform.cpu],
      ...(entry.dev ? { dev: true } : {}),
      ...(platform.libc ? { libc: [platform.libc] } : {}),
      optional: true,
      os: [platform.os],
    };
    added++;
    console.log(
      `added ${key}@${version} (${platform.os}/${platform.cpu}${platform.libc ? `/${platform.libc}` : ""}) for ${location || "root"}`,
    );
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))),
);
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`${added} entries added`);
