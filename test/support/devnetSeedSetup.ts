import { ensureSeed } from "./devnetFixture.js";

/**
 * Global setup of the integration tests: makes the shared devnet seed before any test file starts.
 * Seeding takes 35 s on an idle machine and several minutes on a busy one (a fresh clone, or after a
 * change under src/devnet); done inside one file's `beforeAll`, it ran into that hook's timeout, and
 * so did every file waiting for it. Here it has no deadline, and a seed that is already made costs
 * one check.
 */
export default async function setup(): Promise<void> {
  const started = Date.now();
  await ensureSeed();
  const seconds = (Date.now() - started) / 1000;
  if (seconds > 5) console.log(`devnet seed made in ${seconds.toFixed(0)} s`);
}
