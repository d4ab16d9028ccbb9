import { describe, expect, it } from "vitest";
import { hasCycle } from "../src/prism.js";

describe("hasCycle", () => {
  it("finds a schema that contains itself, and not a schema merely used in two places", () => {
    const shared = { type: "string" };
    const dag = { properties: { a: shared, b: { items: shared } } };
    expect(hasCycle(dag)).toBe(false);
    const node: Record<string, unknown> = { type: "object" };
    node.properties = { child: { items: [node] } };
    expect(hasCycle({ components: { schemas: { Node: node } } })).toBe(true);
  });
});
