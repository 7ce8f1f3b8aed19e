import { readFileSync } from "node:fs";
import { Schema } from "effect";
import { describe, expect, it } from "vitest";
import { Position } from "../../../src/contracts/Positions.js";

/**
 * The example responses of docs/positions.md ("Examples from the devnet") against the response schema:
 * each must decode as a position with no field the schema lacks, and every type but the one whose
 * protocol the devnet does not deploy yet has an example.
 */

const doc = readFileSync(new URL("../../../docs/positions.md", import.meta.url), "utf8");
const section = (() => {
  const start = doc.indexOf("## Examples from the devnet\n");
  const end = doc.indexOf("\n## ", start + 1);
  return doc.slice(start, end === -1 ? undefined : end);
})();
const examples = [...section.matchAll(/```json\n([\s\S]*?)\n```/g)].map((m) => m[1]!);
const decode = Schema.decodeUnknownSync(Position, { onExcessProperty: "error" });
const schemaTypes = Position.members.map((member) => member.fields.type.literals[0] as string);

describe("docs/positions.md examples", () => {
  it("default: every example decodes with the response schema, no field missing or unknown", () => {
    expect(section.length).toBeGreaterThan(0);
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) {
      const parsed = JSON.parse(example) as { type: string };
      expect(() => decode(parsed), `${parsed.type} example`).not.toThrow();
    }
  });

  it("behavior: each type of the schema has an example", () => {
    const documented = new Set(examples.map((e) => (JSON.parse(e) as { type: string }).type));
    for (const type of schemaTypes) expect(documented.has(type), type).toBe(true);
    expect(schemaTypes).toHaveLength(10);
  });

  it("error: an example with a field the schema lacks, or without a required one, does not decode", () => {
    const example = JSON.parse(examples[0]!) as Record<string, unknown>;
    expect(() => decode({ ...example, invented_field: 1 })).toThrow();
    const { chain_id: _dropped, ...withoutChain } = example;
    expect(() => decode(withoutChain)).toThrow();
  });
});
