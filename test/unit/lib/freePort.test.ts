import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { freePort, makeFreePort } from "../../../src/lib/freePort.js";

describe("freePort", () => {
  it("behavior: a port given out once is not given again while the OS offers others", async () => {
    const offers = [4001, 4001, 4002, 4001, 4002, 4003];
    const next = makeFreePort(async () => offers.shift()!);
    expect([await next(), await next(), await next()]).toEqual([4001, 4002, 4003]);
  });

  it("edge: an OS that offers only ports given before gets one of them back after a bounded number of asks", async () => {
    let asked = 0;
    const next = makeFreePort(async () => {
      asked++;
      return 5001;
    });
    expect(await next()).toBe(5001);
    expect(await next()).toBe(5001);
    expect(asked).toBe(21);
  });

  it("default: the port is one a server can listen on at once", async () => {
    const port = await freePort();
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", resolve);
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
