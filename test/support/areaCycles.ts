import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Areas of the source tree that import each other in a cycle. An area is a top-level folder of
 * `root` (`indexer`, `webhooks`, ...) or a file directly in it (`AppConfig`, `main`); an import
 * of one area by another is an edge, type-only imports included (they tie the concepts as much).
 * Folders are meant to depend one way (README, "Code map"): this answers each strongly connected
 * group of two or more areas, with the import lines between them, so a check can name them.
 */
export interface AreaCycle {
  readonly areas: ReadonlyArray<string>;
  /** `from-file -> to-file` lines that join the areas of the cycle. */
  readonly imports: ReadonlyArray<string>;
}

const SOURCE = /\.(ts|tsx)$/;
/** Relative specifiers of `import ... from`, `export ... from` and `import("...")`. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*)["'](\.{1,2}\/[^"']+)["']/g;

const filesUnder = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path);
    return SOURCE.test(name) ? [path] : [];
  });

export const areaCycles = (root: string): ReadonlyArray<AreaCycle> => {
  const top = resolve(root);
  const areaOf = (path: string) => {
    const parts = relative(top, path).split("/");
    return parts.length === 1 ? parts[0]!.replace(/\.(js|ts|tsx)$/, "") : parts[0]!;
  };
  const edges = new Map<string, Set<string>>();
  const lines = new Map<string, Array<string>>();
  for (const file of filesUnder(top)) {
    const from = areaOf(file);
    for (const match of readFileSync(file, "utf8").matchAll(SPECIFIER)) {
      const target = resolve(dirname(file), match[1]!);
      if (relative(top, target).startsWith("..")) continue;
      const to = areaOf(target);
      if (to === from) continue;
      if (!edges.has(from)) edges.set(from, new Set());
      edges.get(from)!.add(to);
      const key = `${from}>${to}`;
      if (!lines.has(key)) lines.set(key, []);
      lines.get(key)!.push(`${relative(top, file)} -> ${relative(top, target).replace(/\.js$/, ".ts")}`);
    }
  }

  // Tarjan's strongly connected components over the area graph.
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: Array<string> = [];
  const onStack = new Set<string>();
  const groups: Array<Array<string>> = [];
  const visit = (area: string) => {
    order.set(area, order.size);
    low.set(area, order.get(area)!);
    stack.push(area);
    onStack.add(area);
    for (const next of edges.get(area) ?? []) {
      if (!order.has(next)) {
        visit(next);
        low.set(area, Math.min(low.get(area)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(area, Math.min(low.get(area)!, order.get(next)!));
    }
    if (low.get(area) === order.get(area)) {
      const group: Array<string> = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== area);
      groups.push(group);
    }
  };
  for (const area of edges.keys()) if (!order.has(area)) visit(area);

  return groups
    .filter((group) => group.length > 1)
    .map((group) => {
      const members = new Set(group);
      return {
        areas: [...group].sort(),
        imports: [...lines]
          .filter(([key]) => {
            const [from, to] = key.split(">");
            return members.has(from!) && members.has(to!);
          })
          .flatMap(([, found]) => found)
          .sort(),
      };
    });
};

// Run as a check (`npm run lint`): exits 1, naming the imports, when `src/` has an area cycle.
if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = process.argv[2] ?? "src";
  const cycles = areaCycles(root);
  for (const cycle of cycles) {
    console.error(`Areas of ${root}/ import each other in a cycle: ${cycle.areas.join(", ")}`);
    for (const line of cycle.imports) console.error(`  ${line}`);
  }
  if (cycles.length > 0) {
    console.error("Folders depend one way (README, Code map): move the code or pass what it needs in.");
    process.exit(1);
  }
}
