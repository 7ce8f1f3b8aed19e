import { connect, type Socket } from "node:net";

/** What a raw upload got back and how its connection ended. */
export interface DeafUploadResult {
  /** Everything the server sent, as text. */
  readonly received: string;
  /** Bytes of request (head and body) handed to the socket before the connection ended. */
  readonly sent: number;
  /** The socket error that ended the connection (a reset, a broken pipe), if any. */
  readonly error?: string;
  /** Whether the server closed its side cleanly (FIN) before the connection ended. */
  readonly serverEnded: boolean;
  readonly elapsedMs: number;
}

/**
 * Runs `send` on a fresh connection to 127.0.0.1:`port` and collects the answer
 * until the connection is gone. The client never reacts to the answer, the way
 * clients that read only after sending behave, or a hostile one.
 */
const deafUpload = (
  port: number,
  send: (socket: Socket, count: (bytes: number) => void) => void,
  options: { readonly allowHalfOpen?: boolean } = {},
) =>
  new Promise<DeafUploadResult>((resolve) => {
    const started = Date.now();
    const socket = connect({ port, host: "127.0.0.1", allowHalfOpen: options.allowHalfOpen ?? false });
    const received: Array<Buffer> = [];
    let sent = 0;
    let error: string | undefined;
    let serverEnded = false;
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    socket.on("end", () => (serverEnded = true));
    socket.on("error", (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    socket.on("close", () =>
      resolve({
        received: Buffer.concat(received).toString("latin1"),
        sent,
        ...(error === undefined ? {} : { error }),
        serverEnded,
        elapsedMs: Date.now() - started,
      }),
    );
    socket.once("connect", () => send(socket, (bytes) => (sent += bytes)));
  });

/** Sends the head and the whole `body` (Content-Length framed), reading the answer only as it comes. */
export const uploadWholeBody = (port: number, path: string, body: Buffer) =>
  deafUpload(port, (socket, count) => {
    const head = `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`;
    count(head.length + body.length);
    socket.write(head);
    socket.write(body);
  });

/**
 * Sends the head and part of a `declared`-byte body, then closes its sending side,
 * still reading: what a client that gives up on an upload (after the answer) leaves.
 */
export const uploadPartThenStop = (port: number, path: string, declared: number) =>
  deafUpload(
    port,
    (socket, count) => {
      const head = `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${declared}\r\n\r\n`;
      const part = Buffer.alloc(64 * 1024, 0x61);
      count(head.length + part.length);
      socket.write(head);
      socket.write(part);
      // Only once the answer is in: a client stops because it has read it.
      socket.once("data", () => socket.end());
    },
    { allowHalfOpen: true },
  );

/** Sends a chunked body that never ends, as fast as the connection takes it. */
export const uploadEndlessBody = (port: number, path: string) =>
  deafUpload(port, (socket, count) => {
    const chunk = Buffer.concat([Buffer.from("10000\r\n"), Buffer.alloc(0x10000, 0x61), Buffer.from("\r\n")]);
    socket.write(
      `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`,
    );
    const pump = () => {
      while (!socket.destroyed) {
        count(chunk.length);
        if (!socket.write(chunk)) return;
      }
    };
    socket.on("drain", pump);
    pump();
  });
