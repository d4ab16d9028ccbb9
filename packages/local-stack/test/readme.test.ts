import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import { readmeBlockTests } from "@api-contracts/dev-tools/testing";

const packageDir = fileURLToPath(new URL("..", import.meta.url));

readmeBlockTests(packageDir, 1);

describe("README: api-mock --faults", () => {
  it("the faults file shown is served as shown, with its seed line, and each fired rule is logged as shown", async () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const file = /### Slow answers[\s\S]*?```json\n([\s\S]*?)```/.exec(readme)![1]!;
    const shown = /```sh\napi-mock --faults faults\.json --faults-seed 42\n([\s\S]*?)```/.exec(readme)![1]!;
    const dir = mkdtempSync(path.join(tmpdir(), "readme-faults-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(path.join(dir, "faults.json"), file);
    const child = spawn(process.execPath, [path.join(packageDir, "bin", "api-mock.js"), "--faults", "faults.json", "--faults-seed", "42", "--webdata-port", "0", "--entitlements-port", "0"], { cwd: dir });
    try {
      let out = "";
      let err = "";
      child.stderr.on("data", (c: Buffer) => (err += c.toString()));
      while ((out.match(/http:\/\/\S+/g) ?? []).length < 2) out += (await once(child.stdout, "data"))[0];
      const [, entitlements] = out.match(/http:\/\/\S+/g)!;
      expect(err).toContain(shown.split("\n")[0]!.replace(/^# /, "").replace(/\s+<- stderr$/, ""));
      // Enough checks for the 10% rule to fire (the seed fixes when).
      for (let i = 0; i < 40; i++) {
        await fetch(`${entitlements}/v1/balances.check`, { method: "POST", headers: { authorization: "Bearer am_sk_test", "content-type": "application/json" }, body: JSON.stringify({ customer_id: "c", feature_id: "f" }) });
      }
      const fired = shown.split("\n").find((line) => line.startsWith("# fault: "))!.replace(/^# /, "").replace(/\s+<- stderr, per fired rule$/, "");
      expect(err.split("\n")).toContain(fired);
    } finally {
      child.kill("SIGTERM");
    }
  });
});
