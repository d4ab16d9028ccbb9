import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { defaultFixtures, loadFixtures, startReferenceServer, validateFixtures, FixturesError } from "../src/index.js";

const run = promisify(execFile);
// The installed command: the bin shim loading the built CLI (tests run after the build).
const bin = path.resolve(import.meta.dirname, "../bin/reference-server.js");
const dir = mkdtempSync(path.join(tmpdir(), "reference-fixtures-"));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("fixtures", () => {
  it("the built-in fixtures are valid against the descriptions and the kit's rules", () => {
    expect(() => validateFixtures(defaultFixtures)).not.toThrow();
  });

  it("--write-fixtures writes the built-in fixtures, which load back unchanged", async () => {
    const file = path.join(dir, "fixtures.json");
    await run(process.execPath, [bin, "--write-fixtures", file]);
    const written = JSON.parse(readFileSync(file, "utf8"));
    expect(Object.keys(written).slice(0, 3)).toEqual(["entitlements", "webdata", "api_keys"]);
    expect(loadFixtures(file)).toEqual(defaultFixtures);
  }, 60_000);

  it("a fixtures file without a world is served with the built-in world", () => {
    const { world: _world, ...kitOnly } = defaultFixtures;
    expect(validateFixtures(kitOnly).world).toEqual(defaultFixtures.world);
  });

  it("a world object that breaks the description is rejected with a message naming it", () => {
    const bad = structuredClone(defaultFixtures);
    (bad.world!.entitlements.features[0] as { type: string }).type = "teleport";
    expect(() => validateFixtures(bad)).toThrow(/world\.entitlements\.features\[0\]\.type: must be one of/);
  });

  it("ids the contract kit relies on must fit the world (a denied feature must not be in the plan)", () => {
    const bad = structuredClone(defaultFixtures);
    bad.entitlements.denied_feature_id = bad.entitlements.boolean_feature_id;
    expect(() => validateFixtures(bad)).toThrow(FixturesError);
    expect(() => validateFixtures(bad)).toThrow(/denied_feature_id/);
  });

  it("a missing member and broken JSON are reported with the file name", () => {
    const file = path.join(dir, "broken.json");
    writeFileSync(file, "{");
    expect(() => loadFixtures(file)).toThrow(new RegExp(`${file.replaceAll("/", "\\/")}: `));
    writeFileSync(file, JSON.stringify({ entitlements: {}, webdata: {} }));
    expect(() => loadFixtures(file)).toThrow(/"entitlements" section lacks "customer_id"/);
  });

  it("the kit's format is checked by the kit's own schema: a crawl_url that is not http(s) is refused", () => {
    const bad = structuredClone(defaultFixtures);
    bad.webdata.crawl_url = "ftp://example.com";
    expect(() => validateFixtures(bad)).toThrow(FixturesError);
    expect(() => validateFixtures(bad)).toThrow(/webdata\.crawl_url/);
  });

  it("the server needs both sections and both keys, which the kit's format leaves optional", () => {
    const { api_keys: _keys, ...keyless } = defaultFixtures;
    expect(() => validateFixtures(keyless)).toThrow(/api_keys is required/);
    const oneKey = { ...defaultFixtures, api_keys: { entitlements: defaultFixtures.api_keys.entitlements } };
    expect(() => validateFixtures(oneKey)).toThrow(/api_keys\.webdata is required/);
  });

  it("startReferenceServer refuses an unknown service, naming those it implements", async () => {
    await expect(startReferenceServer({ service: "billing" as "webdata" })).rejects.toThrow("unknown service billing: this server implements entitlements and webdata");
  });
});

describe("reference-server command", () => {
  it("serves the fixtures file given with --fixtures on the given ports, says which key it accepts, and stops on SIGTERM", async () => {
    const fixtures = structuredClone(defaultFixtures);
    fixtures.api_keys.entitlements = "am_sk_from_file";
    const file = path.join(dir, "custom.json");
    writeFileSync(file, JSON.stringify(fixtures));
    const { spawn } = await import("node:child_process");
    const child = spawn(process.execPath, [bin, "--service", "entitlements", "--entitlements-port", "0", "--fixtures", file], { stdio: ["ignore", "pipe", "pipe"] });
    try {
      let out = "";
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          const match = /listening on (\S+)\n.*\n/.exec(out);
          if (match) resolve(match[1]!);
        });
        child.once("exit", (code) => reject(new Error(`exited with ${code}: ${out}`)));
      });
      const response = await fetch(`${url}/v1/balances.check`, {
        method: "POST",
        headers: { authorization: "Bearer am_sk_from_file", "content-type": "application/json" },
        body: JSON.stringify({ customer_id: fixtures.entitlements.customer_id, feature_id: fixtures.entitlements.boolean_feature_id }),
      });
      expect((await response.json()).allowed).toBe(true);
      expect(out).toContain(`accepts Authorization: Bearer am_sk_from_file (api_keys.entitlements of ${file}; --fixtures <file> sets another)`);
    } finally {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
  }, 60_000);

  it("a bad option exits 2 with the usage text", async () => {
    const failure = await run(process.execPath, [bin, "--service", "billing"]).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr).toContain("--service must be entitlements, webdata or both");
    expect((failure as { stderr: string }).stderr).toContain("Usage: reference-server");
  }, 60_000);

  it("--help names the key each API accepts and how to change it", async () => {
    const { stdout } = await run(process.execPath, [bin, "--help"]);
    for (const service of ["entitlements", "webdata"] as const) expect(stdout).toMatch(new RegExp(`^  ${service} +${defaultFixtures.api_keys[service]}$`, "m"));
    expect(stdout).toContain("A --fixtures file sets others (its api_keys)");
  }, 60_000);

  it("--help names every limit flag, and a limit that is not a positive integer exits 2", async () => {
    const { stdout } = await run(process.execPath, [bin, "--help"]);
    for (const flag of ["--body-limit", "--request-timeout", "--headers-timeout", "--idle-timeout", "--max-locks", "--max-idempotency-keys", "--idempotency-key-ttl", "--max-crawls", "--public-url"]) expect(stdout).toContain(flag);
    const failure = await run(process.execPath, [bin, "--max-locks", "0"]).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr).toContain("--max-locks must be a positive integer");
  }, 60_000);
});
