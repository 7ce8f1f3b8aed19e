import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { areaCycles } from "../../support/areaCycles.js";

/** A source tree of the given files (path -> content) in a fresh directory. */
const tree = (files: Record<string, string>) => {
  const root = mkdtempSync(join(tmpdir(), "areas-"));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
};

describe("the area-cycle check", () => {
  it("behavior: the service's own source has no cycle between its areas", () => {
    expect(areaCycles("src")).toEqual([]);
  });

  it("error: a type-only import that closes a loop through three areas is named, with the lines that make it", () => {
    const root = tree({
      "indexer/reader.ts": 'import { lens } from "../chains/lens.js";\nexport const reader = lens;\n',
      "chains/lens.ts": 'import { Settings } from "../Config.js";\nexport const lens = 1;\n',
      "Config.ts": 'import type { Reader } from "./indexer/reader.js";\nexport type Settings = Reader;\n',
      "lib/free.ts": 'import { lens } from "../chains/lens.js";\nexport const free = lens;\n',
    });
    expect(areaCycles(root)).toEqual([
      {
        areas: ["Config", "chains", "indexer"],
        imports: [
          "Config.ts -> indexer/reader.ts",
          "chains/lens.ts -> Config.ts",
          "indexer/reader.ts -> chains/lens.ts",
        ],
      },
    ]);
  });

  it("default: imports within an area, and one-way imports between areas, are no cycle", () => {
    const root = tree({
      "a/one.ts": 'import { two } from "./two.js";\nexport const one = two;\n',
      "a/two.ts": 'import { one } from "./one.js";\nimport { b } from "../b/b.js";\nexport const two = b;\n',
      "b/b.ts": 'export const b = await import("../c.js");\n',
      "c.ts": "export const c = 1;\n",
    });
    expect(areaCycles(root)).toEqual([]);
  });
});
