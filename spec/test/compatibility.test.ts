import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const specDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const notes = readFileSync(path.join(specDir, "COMPATIBILITY.md"), "utf8");
const httpMethods = new Set(["get", "put", "post", "delete", "patch", "head", "options", "trace"]);
const headings = notes.split("\n").filter((line) => line.startsWith("### "));

describe("COMPATIBILITY.md", () => {
  for (const api of ["entitlements", "webdata"]) {
    const bundle = JSON.parse(readFileSync(path.join(specDir, "dist", `${api}.openapi.json`), "utf8"));
    for (const [route, item] of Object.entries(bundle.paths as Record<string, Record<string, { operationId: string }>>)) {
      for (const [method, operation] of Object.entries(item).filter(([key]) => httpMethods.has(key))) {
        it(`${api}: ${method.toUpperCase()} ${route} has a section naming it and its operationId`, () => {
          const heading = headings.find((line) => line.includes(`${method.toUpperCase()} ${route}`));
          expect(heading, `no "### … ${method.toUpperCase()} ${route}" heading`).toBeDefined();
          expect(heading).toContain(`\`${operation.operationId}\``);
        });
      }
    }
    for (const [event, item] of Object.entries((bundle.webhooks ?? {}) as Record<string, Record<string, { operationId: string }>>)) {
      for (const operation of Object.values(item).filter((value) => typeof value?.operationId === "string")) {
        it(`${api}: webhook ${event} has a section naming it and its operationId`, () => {
          const heading = headings.find((line) => /^### Webhooks? /.test(line) && line.includes(`\`${event}\` (\`${operation.operationId}\`)`));
          expect(heading, `no "### Webhooks … \`${event}\` (\`${operation.operationId}\`)" heading`).toBeDefined();
        });
      }
    }
  }
});
