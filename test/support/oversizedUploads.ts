/**
 * Posts oversized bodies with Node's global fetch, from a process of its own, and
 * prints what each upload got back as one JSON array on stdout.
 *
 * Its own process because the failure it looks for is a race between the client
 * writing the body and the server answering and closing: in the server's process
 * the two take turns on one event loop, the client always reads the answer first,
 * and a server that resets the connection goes unnoticed.
 *
 * Usage: oversizedUploads.ts <url> <rounds> <MiB>...
 */

export interface UploadOutcome {
  readonly mib: number;
  readonly framing: "content-length" | "streamed";
  readonly status?: number;
  readonly connection?: string | null;
  readonly body?: unknown;
  readonly error?: string;
}

const CHUNK = 64 * 1024;

/** A body fetch can only send chunked: it does not know the length in advance. */
const streamedBody = (mib: number) => {
  let left = (mib * 1024 * 1024) / CHUNK;
  return new ReadableStream<Uint8Array>({
    pull: (controller) => {
      if (left-- > 0) controller.enqueue(new Uint8Array(CHUNK).fill(0x61));
      else controller.close();
    },
  });
};

const upload = async (
  url: string,
  mib: number,
  framing: UploadOutcome["framing"],
): Promise<UploadOutcome> => {
  const body = framing === "content-length" ? Buffer.alloc(mib * 1024 * 1024, 0x61) : streamedBody(mib);
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      ...(framing === "streamed" ? { duplex: "half" } : {}),
    });
    return {
      mib,
      framing,
      status: res.status,
      connection: res.headers.get("connection"),
      body: await res.json(),
    };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return { mib, framing, error: `${String(error)}: ${cause?.code ?? cause?.message ?? "no cause"}` };
  }
};

const [url, rounds, ...sizes] = process.argv.slice(2);
if (url === undefined || rounds === undefined || sizes.length === 0) {
  process.stderr.write("usage: oversizedUploads.ts <url> <rounds> <MiB>...\n");
  process.exit(2);
}
const outcomes: Array<UploadOutcome> = [];
for (let round = 0; round < Number(rounds); round++) {
  for (const mib of sizes.map(Number)) {
    for (const framing of ["content-length", "streamed"] as const)
      outcomes.push(await upload(url, mib, framing));
  }
}
process.stdout.write(`${JSON.stringify(outcomes)}\n`);
