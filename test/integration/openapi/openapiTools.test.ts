import { spawn } from "node:child_process";
import { copyFile, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevnetService, startDevnetService } from "../../support/devnetService.js";
import { REPO_ROOT } from "../../support/runTs.js";

const CLIENT_DIR = join(REPO_ROOT, "test/integration/openapi/typedClient");
const bin = (name: string) => join(REPO_ROOT, "node_modules/.bin", name);

/** Runs a command to its end and collects its output. */
const run = (
  command: string,
  args: ReadonlyArray<string>,
  options: { cwd: string; env?: NodeJS.ProcessEnv },
) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });

let env: DevnetService;
let work: string;
let document: Record<string, unknown>;

beforeAll(async () => {
  env = await startDevnetService();
  document = (await (await fetch(`${env.service.baseUrl}/openapi.json`)).json()) as Record<string, unknown>;
  // A project of its own for the generated client, resolving packages from the repository's.
  work = await mkdtemp(join(tmpdir(), "svc-openapi-"));
  await symlink(join(REPO_ROOT, "node_modules"), join(work, "node_modules"), "dir");
}, 300_000);

afterAll(async () => {
  await env?.stop();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe("the OpenAPI document in the tools clients use", { timeout: 300_000 }, () => {
  it("behavior: GET /openapi.json passes redocly lint with the recommended rules, without a warning", async () => {
    const path = join(work, "openapi.json");
    await writeFile(path, JSON.stringify(document));
    const lint = await run(bin("redocly"), ["lint", "--extends=recommended", "--format=json", path], {
      cwd: work,
    });
    const report = JSON.parse(lint.stdout) as {
      totals: { errors: number; warnings: number };
      problems: ReadonlyArray<{ ruleId: string; message: string }>;
    };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(lint.code).toBe(0);
    // The server is this deployment's PUBLIC_URL.
    expect(document.servers).toEqual([{ url: env.service.baseUrl, description: expect.any(String) }]);
  });

  it("end-to-end: a client generated with openapi-typescript typechecks, refuses misuse, and calls every endpoint with openapi-fetch", async () => {
    // Given types generated from the document the devnet serves
    await writeFile(join(work, "api.d.ts"), astToString(await openapiTS(document as never)));
    await copyFile(join(CLIENT_DIR, "callEveryEndpoint.ts"), join(work, "callEveryEndpoint.ts"));
    await copyFile(join(CLIENT_DIR, "misuse.ts"), join(work, "misuse.ts"));
    await writeFile(
      join(work, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          noEmit: true,
          skipLibCheck: true,
          types: ["node"],
        },
        files: ["callEveryEndpoint.ts", "misuse.ts"],
      }),
    );
    await writeFile(join(work, "package.json"), JSON.stringify({ type: "module" }));

    // When TypeScript checks the client and the misuses
    const tsc = await run(
      process.execPath,
      [join(REPO_ROOT, "node_modules/typescript/bin/tsc"), "-p", work],
      {
        cwd: work,
      },
    );
    const errors = tsc.stdout.split("\n").filter((line) => /error TS\d+/.test(line));
    // Then the client compiles, and each misuse (and nothing else) is refused
    expect(errors.filter((line) => line.startsWith("callEveryEndpoint.ts"))).toEqual([]);
    const misuseLines = errors
      .filter((line) => line.startsWith("misuse.ts"))
      .map((line) => /\((\d+),/.exec(line)![1]);
    expect(new Set(misuseLines).size, tsc.stdout).toBe(3);

    // And every endpoint answers through the generated client
    const manifest = env.devnet.manifest.chains.find((chain) => chain.chain_id === 1)!;
    const called = await run(process.execPath, ["--import", "tsx", "callEveryEndpoint.ts"], {
      cwd: work,
      env: {
        BASE_URL: env.service.baseUrl,
        API_KEY: env.key,
        WHALE: manifest.wallets.whale!,
        LP: manifest.wallets.v3_lp!,
        TOKEN: Object.values(manifest.tokens)[0]!.address,
      },
    });
    expect(called.code, called.stderr).toBe(0);
    const { statuses, facts } = JSON.parse(called.stdout) as {
      statuses: Record<string, number>;
      facts: Record<string, unknown>;
    };
    const operations = Object.values(
      document.paths as Record<string, Record<string, { operationId: string }>>,
    )
      .flatMap((methods) => Object.values(methods))
      .map((operation) => operation.operationId);
    expect(Object.keys(statuses).sort()).toEqual([...operations].sort());
    for (const [operation, status] of Object.entries(statuses)) expect(status, operation).toBe(200);
    expect(facts).toMatchObject({ secretShown: true, pausedActive: false, health: "ok" });
    expect(facts.whaleValueUsd).toBeGreaterThan(0);
    expect((facts.nftRanges as ReadonlyArray<unknown>).length).toBeGreaterThan(0);
    expect(facts.chainIds).toEqual(expect.arrayContaining([1, 8453, 10]));
  });
});
