import { type AnvilInstance, type AnvilOptions, startAnvil } from "../../src/devnet/AnvilProcess.js";

export type { AnvilInstance, AnvilOptions } from "../../src/devnet/AnvilProcess.js";
export { startAnvil } from "../../src/devnet/AnvilProcess.js";

/**
 * A bare anvil for a test file: call `start()` in beforeAll and `stop()` in afterAll. `node()` throws when
 * used before `start()`, so a missing hook fails loudly instead of hitting a default port.
 */
export const anvilFixture = (options: AnvilOptions = { chainId: 31337 }) => {
  let instance: AnvilInstance | undefined;
  return {
    start: async (): Promise<AnvilInstance> => {
      instance = await startAnvil(options);
      return instance;
    },
    node: (): AnvilInstance => {
      if (instance === undefined) throw new Error("anvilFixture: start() was not called");
      return instance;
    },
    stop: async (): Promise<void> => {
      await instance?.stop();
      instance = undefined;
    },
  };
};
