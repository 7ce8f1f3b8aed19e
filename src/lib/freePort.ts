import { createServer } from "node:net";

/** Asks the OS for a TCP port that is free on 127.0.0.1 right now. */
const askOs = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error("the OS gave no port"))));
    });
  });

/** Ports asked for before a repeat is given out all the same (the OS is then short of free ones). */
const TRIES = 20;

/**
 * Free ports, none given twice by one `ask`er while another is free: a client still connected
 * to a server stopped on a port (a NATS client reconnects for as long as it lives) must not reach
 * whatever this process starts there next. Tests run many files in one process, one after another.
 */
export const makeFreePort = (ask: () => Promise<number> = askOs) => {
  const given = new Set<number>();
  return async (): Promise<number> => {
    let port = await ask();
    for (let i = 1; i < TRIES && given.has(port); i++) port = await ask();
    given.add(port);
    return port;
  };
};

/** A TCP port free on 127.0.0.1 right now, and not given out before by this process. */
export const freePort: () => Promise<number> = makeFreePort();
