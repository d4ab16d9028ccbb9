import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, describe, expect, it } from "vitest";
import { fixturesSchema } from "../src/index.js";
import { runCli } from "./helpers.js";

const dir = mkdtempSync(path.join(tmpdir(), "contract-init-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const validate = new Ajv2020({ allErrors: true, strict: false }).compile(fixturesSchema);

type Section = Record<string, string>;
const sectionSchema = (service: string) => {
  const ref = (fixturesSchema.properties as Record<string, { $ref: string }>)[service]!.$ref.replace("#/$defs/", "");
  return (fixturesSchema.$defs as Record<string, { required: string[]; properties: Record<string, { description: string }> }>)[ref]!;
};

describe.each(["entitlements", "webdata"])("contract-test init --service %s", (service) => {
  const file = path.join(dir, `${service}.json`);

  it("writes a file the fixtures schema accepts, with every id the behavior level needs and what each must be", async () => {
    const run = await runCli(["init", "--service", service, "--out", file]);
    expect(run.code).toBe(0);
    expect(run.out.join("\n")).toContain(`wrote ${file}`);
    const written = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    expect(validate(written), JSON.stringify(validate.errors)).toBe(true);
    const schema = sectionSchema(service);
    const section = written[service] as Section;
    expect(Object.keys(section).sort()).toEqual([...schema.required].sort());
    const descriptions = (written.descriptions as Record<string, Section>)[service]!;
    for (const member of schema.required) {
      expect(descriptions[member]).toContain(schema.properties[member]!.description);
      // Every id is a placeholder; a value the schema suggests (the crawl URL) is offered as it is.
      if (!descriptions[member]!.includes("Suggested:")) expect(section[member]).toBe(`<fill in: ${member}>`);
    }
    expect(written.$comment).toContain(`--service ${service} --level behavior`);
    expect(written.api_keys).toEqual({ [service]: `<fill in: api_keys.${service}>` });
    const ids = schema.required.filter((member) => section[member]!.startsWith("<fill in:")).length;
    expect(run.out.join("\n")).toContain(`: ${ids} id${ids === 1 ? "" : "s"} and the API key (api_keys.${service}) to fill in`);
  });

  it("the kit refuses to run while a placeholder is left, naming each one (exit 2)", async () => {
    const run = await runCli(["--service", service, "--base-url", "http://127.0.0.1:1", "--api-key", "key-for-the-init-test-0123", "--level", "behavior", "--fixtures", file]);
    expect(run.code).toBe(2);
    const placeholders = Object.entries(JSON.parse(readFileSync(file, "utf8"))[service] as Section).filter(([, value]) => value.startsWith("<fill in:"));
    expect(placeholders.length).toBeGreaterThan(0);
    for (const [member] of placeholders) expect(run.err.join("\n")).toContain(`"${service}.${member}"`);
    expect(run.err.join("\n")).toContain("from contract-test init");
  });

  it("the first run on the file as written names every placeholder at once, the key's included, in one message", async () => {
    const run = await runCli(["--service", service, "--base-url", "http://127.0.0.1:1", "--level", "behavior", "--fixtures", file]);
    expect(run.code).toBe(2);
    expect(run.err).toHaveLength(1);
    const placeholders = Object.entries(JSON.parse(readFileSync(file, "utf8"))[service] as Section).filter(([, value]) => value.startsWith("<fill in:"));
    for (const [member] of placeholders) expect(run.err[0]).toContain(`"${service}.${member}"`);
    expect(run.err[0]).toContain(`api_keys.${service} in the fixtures still holds its placeholder`);
  });

  it("will not overwrite an existing file that has the section, or is not a fixtures object, without --force", async () => {
    for (const text of [JSON.stringify({ [service]: {} }), "[]", "not json"]) {
      writeFileSync(file, text);
      const refused = await runCli(["init", "--service", service, "--out", file]);
      expect(refused.code).toBe(2);
      expect(refused.err.join("\n")).toContain("--force");
      expect(readFileSync(file, "utf8")).toBe(text);
    }
    expect((await runCli(["init", "--service", service, "--out", file, "--force"])).code).toBe(0);
    expect(validate(JSON.parse(readFileSync(file, "utf8")))).toBe(true);
  });
});

it("contract-test init without a known service exits 2 with its usage", async () => {
  const run = await runCli(["init", "--service", "billing", "--out", path.join(dir, "nothing.json")]);
  expect(run.code).toBe(2);
  expect(run.err.join("\n")).toMatch(/--service must be one of entitlements, webdata, the APIs whose checks need fixtures \(got "billing"\)[\s\S]*Usage: contract-test init/);
});

it("init for the second service adds its section to the first one's file, keeping what is there", async () => {
  const file = path.join(dir, "both.json");
  expect((await runCli(["init", "--service", "webdata", "--out", file])).code).toBe(0);
  const first = JSON.parse(readFileSync(file, "utf8")) as Record<string, Record<string, string>>;
  first.webdata!.monitor_id = "mon_1";
  first.api_keys!.webdata = "fc-key";
  writeFileSync(file, JSON.stringify(first));
  const run = await runCli(["init", "--service", "entitlements", "--out", file]);
  expect(run.code, run.err.join("\n")).toBe(0);
  expect(run.out.join("\n")).toMatch(/^added the "entitlements" section to .*both\.json: 6 ids and the API key \(api_keys\.entitlements\) to fill in/);
  const both = JSON.parse(readFileSync(file, "utf8")) as Record<string, Record<string, unknown>>;
  expect(validate(both), JSON.stringify(validate.errors)).toBe(true);
  expect(both.webdata).toEqual(first.webdata);
  expect(both.api_keys).toEqual({ webdata: "fc-key", entitlements: "<fill in: api_keys.entitlements>" });
  expect(Object.keys(both.descriptions!).sort()).toEqual(["api_keys", "entitlements", "webdata"]);
  expect(Object.keys(both.entitlements!).sort()).toEqual([...sectionSchema("entitlements").required].sort());
  // A second run for either service finds its section there and refuses.
  expect((await runCli(["init", "--service", "webdata", "--out", file])).code).toBe(2);
});

it("says 1 id, not 1 ids", async () => {
  const file = path.join(dir, "webdata-one.json");
  const run = await runCli(["init", "--service", "webdata", "--out", file]);
  expect(run.out.join("\n")).toContain(": 1 id and the API key (api_keys.webdata) to fill in");
});

it("a key left as init's placeholder is refused, naming api_keys, unless --api-key is given", async () => {
  const file = path.join(dir, "key-placeholder.json");
  writeFileSync(file, JSON.stringify({ webdata: { monitor_id: "mon_1", crawl_url: "https://example.com" }, api_keys: { webdata: "<fill in: api_keys.webdata>" } }));
  const run = await runCli(["--service", "webdata", "--base-url", "http://127.0.0.1:1", "--level", "behavior", "--fixtures", file]);
  expect(run.code).toBe(2);
  expect(run.err.join("\n")).toContain("api_keys.webdata in the fixtures still holds its placeholder from contract-test init");
});
