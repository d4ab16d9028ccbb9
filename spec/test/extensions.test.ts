// The spec's machine-readable extras must point at things that exist: an `x-rules` entry names a
// member of its schema and a known rule kind, a link names an operation and its parameters, and
// `x-webhook-signature` names headers every webhook documents.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const specDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bundles = Object.fromEntries(
  ["entitlements", "webdata"].map((api) => [api, JSON.parse(readFileSync(path.join(specDir, "dist", `${api}.openapi.json`), "utf8"))]),
);
const ruleMembers: Record<string, string[]> = {
  "time-window": ["rule", "member", "encoding", "maxAheadMs", "maxBehindMs", "description"],
  "at-most-fraction": ["rule", "member", "of", "fraction", "ofDefault", "description"],
  "wait-total": ["rule", "member", "maxMs", "selectorWaitMs", "description"],
  "no-schemaless-object": ["rule", "member", "description"],
  url: ["rule", "member", "trim", "defaultScheme", "schemes", "host", "fileExtensions", "singleColonBeforeFirstDot", "description"],
  "utf16-length": ["rule", "member", "minLength", "maxLength", "description"],
  "path-regex": ["rule", "member", "description"],
};

interface Rule { rule: string; member: string; of?: string; encoding?: string; fraction?: number; maxLength?: number; host?: string; description: string }

/** Every schema object of a component that carries `x-rules`, nested ones named by their path (`ScrapeOptions.profile`). */
function schemasWithRules(document: any): { name: string; schema: any; rules: Rule[] }[] {
  const found: { name: string; schema: any; rules: Rule[] }[] = [];
  const visit = (name: string, schema: any) => {
    if (typeof schema !== "object" || schema === null) return;
    if (schema["x-rules"]) found.push({ name, schema, rules: schema["x-rules"] });
    for (const [key, property] of Object.entries<any>(schema.properties ?? {})) visit(`${name}.${key}`, property);
  };
  for (const [name, schema] of Object.entries<any>(document.components.schemas)) visit(name, schema);
  return found;
}

/** The schemas a member has in an object schema: its own `properties` and those of each `oneOf`/`anyOf` branch. */
function memberSchemas(schema: any, member: string): any[] {
  const branches = [schema, ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])];
  return branches.map((branch) => branch.properties?.[member]).filter(Boolean);
}

/** The JSON types a rule reads its member as. */
function memberTypes(rule: Rule): unknown[] {
  switch (rule.rule) {
    case "wait-total":
      return ["array"];
    case "no-schemaless-object":
      return [undefined];
    case "url":
      return ["string", "array"];
    case "utf16-length":
      return ["string"];
    case "path-regex":
      return ["array"];
    default:
      return ["number", "integer"];
  }
}

/** The forms of a member the rule reads: the member itself, or those of its `oneOf`/`anyOf` branches of the rule's type. */
function readForms(property: any, rule: Rule): any[] {
  if (memberTypes(rule).includes(property.type)) return [property];
  return [...(property.oneOf ?? []), ...(property.anyOf ?? [])].filter((branch) => memberTypes(rule).includes(branch.type));
}

describe("x-rules", () => {
  it("the rules the sources state are on their schemas", () => {
    const found = Object.values(bundles).flatMap((document) =>
      schemasWithRules(document).flatMap(({ name, rules }) => rules.map((rule) => `${name}.${rule.member}: ${rule.rule}`)),
    );
    expect(found.sort()).toEqual([
      "ChangeTrackingFormat.schema: no-schemaless-object",
      "CheckLock.expires_at: time-window",
      "CheckLock.lock_id: utf16-length",
      "CrawlRequest.excludePaths: path-regex",
      "CrawlRequest.includePaths: path-regex",
      "CrawlRequest.prompt: utf16-length",
      "CrawlRequest.url: url",
      "CrawlRequest.webhook: url",
      "HighlightsFormat.query: utf16-length",
      "JsonFormat.prompt: utf16-length",
      "JsonFormat.schema: no-schemaless-object",
      "MonitorCrawlTarget.url: url",
      "MonitorScrapeTarget.urls: url",
      "MonitorWebhook.url: url",
      "QueryFormat.prompt: utf16-length",
      "QuestionFormat.question: utf16-length",
      "ScrapeOptions.actions: wait-total",
      "ScrapeOptions.profile.name: utf16-length",
      "ScrapeOptions.waitFor: at-most-fraction",
      "TrackLock.lock_id: utf16-length",
      "TrackRequest.timestamp: time-window",
      "Webhook.url: url",
    ]);
  });

  for (const [api, document] of Object.entries(bundles)) {
    for (const { name, schema, rules } of schemasWithRules(document)) {
      it(`${api} ${name}: every rule has a known kind, only its own members, and names members of the schema of the type it reads`, () => {
        for (const rule of rules) {
          expect(Object.keys(ruleMembers)).toContain(rule.rule);
          expect(Object.keys(rule).filter((key) => !ruleMembers[rule.rule]!.includes(key))).toEqual([]);
          expect(rule.description).toMatch(/\S/);
          for (const member of [rule.member, rule.of].filter(Boolean)) {
            const schemas = memberSchemas(schema, member!);
            expect(schemas.length, `${name}.${member}`).toBeGreaterThan(0);
            for (const property of schemas) {
              // A member of several forms (`webhook`: a URL string or a Webhook object) is read in the
              // forms of the rule's type; the rule passes the others through.
              const forms = readForms(property, rule);
              expect(forms.length, `${name}.${member}: a form of the type ${memberTypes(rule).join(" or ")}`).toBeGreaterThan(0);
            }
          }
          // The rule is the one definition of a URL member: no format or pattern that says otherwise.
          if (rule.rule === "url") {
            for (const property of memberSchemas(schema, rule.member).flatMap((member) => readForms(member, rule))) {
              const strings = property.type === "array" ? property.items : property;
              expect(strings.format, `${name}.${rule.member}`).toBeUndefined();
              expect(strings.pattern, `${name}.${rule.member}`).toBeUndefined();
            }
            if (rule.host !== undefined) expect(rule.host).toBe("reachable");
          }
          // The rule is the one definition of a pattern list: no format that judges the patterns otherwise.
          if (rule.rule === "path-regex") {
            for (const property of memberSchemas(schema, rule.member)) expect(property.items.format, `${name}.${rule.member}`).toBeUndefined();
          }
          // The docs' maxLength and the rule's count the same limit, in code points and in UTF-16 code units.
          if (rule.rule === "utf16-length") {
            for (const property of memberSchemas(schema, rule.member)) expect(property.maxLength, `${name}.${rule.member}`).toBe(rule.maxLength);
          }
          if (rule.rule === "time-window") expect(["epoch-milliseconds", "date-time"]).toContain(rule.encoding);
          if (rule.rule === "at-most-fraction") expect(rule.fraction).toBeGreaterThan(0);
        }
      });
    }
  }
});

describe("links", () => {
  for (const [api, document] of Object.entries(bundles)) {
    const operations = new Map<string, any>();
    for (const item of Object.values<any>(document.paths)) {
      for (const operation of Object.values<any>(item)) {
        if (operation?.operationId) operations.set(operation.operationId, { operation, pathParameters: item.parameters ?? [] });
      }
    }
    const resolve = (node: any) => (node?.$ref ? resolve(node.$ref.slice(2).split("/").reduce((n: any, t: string) => n[t], document)) : node);
    const links = [...operations.entries()].flatMap(([from, { operation }]) =>
      Object.entries<any>(operation.responses).flatMap(([status, response]) =>
        Object.entries<any>(resolve(response).links ?? {}).map(([name, link]) => ({ where: `${from} ${status} ${name}`, link })),
      ),
    );

    it(`${api}: the documented links are there`, () => {
      expect(links.map((entry) => entry.where).sort()).toEqual(
        api === "entitlements"
          ? ["checkAccess 200 finalizeLock", "checkAccessLegacy 200 finalizeLock"]
          : ["startCrawl 200 cancelCrawl"],
      );
    });

    for (const { where, link } of links) {
      it(`${api} ${where}: names an existing operation, its parameters and its body members`, () => {
        const target = operations.get(link.operationId);
        expect(target, link.operationId).toBeDefined();
        const parameterNames = [...target.pathParameters, ...(target.operation.parameters ?? [])].map((p: any) => resolve(p).name);
        for (const name of Object.keys(link.parameters ?? {})) expect(parameterNames).toContain(name);
        if (link.requestBody) {
          const schema = resolve(resolve(target.operation.requestBody).content["application/json"].schema);
          for (const member of Object.keys(link.requestBody)) expect(Object.keys(schema.properties)).toContain(member);
        }
      });
    }
  }
});

describe("x-webhook-signature", () => {
  const schemes: Record<string, string[]> = {
    "hmac-sha256-hex": ["scheme", "signatureHeader", "prefix", "description"],
    "standard-webhooks": ["scheme", "idHeader", "timestampHeader", "signatureHeader", "toleranceSeconds", "description"],
  };

  it("both APIs describe webhooks, and each states how its calls are signed", () => {
    for (const document of Object.values(bundles)) {
      expect(Object.keys(document.webhooks ?? {}).length).toBeGreaterThan(0);
      expect(Object.keys(schemes)).toContain(document["x-webhook-signature"]?.scheme);
    }
  });

  for (const [api, document] of Object.entries(bundles)) {
    const signature = document["x-webhook-signature"] ?? {};
    it(`${api}: the scheme has only its own members, and every webhook documents its headers`, () => {
      expect(Object.keys(signature).filter((key) => !schemes[signature.scheme]!.includes(key))).toEqual([]);
      expect(signature.description).toMatch(/\S/);
      const headers = ["idHeader", "timestampHeader", "signatureHeader"].map((key) => signature[key]).filter(Boolean);
      const resolve = (node: any): any => (node?.$ref ? resolve(node.$ref.slice(2).split("/").reduce((n: any, t: string) => n[t], document)) : node);
      for (const [event, item] of Object.entries<any>(document.webhooks)) {
        const documented = (item.post.parameters ?? []).map(resolve).filter((p: any) => p.in === "header").map((p: any) => p.name.toLowerCase());
        for (const header of headers) expect(documented, `${event} documents ${header}`).toContain(header.toLowerCase());
        const schema = resolve(item.post.requestBody.content["application/json"].schema);
        const type = schema.properties?.type ?? schema.allOf?.map(resolve).find((part: any) => part.properties?.type)?.properties.type;
        expect(schema.properties?.type?.const ?? type?.const, `${event}: the payload's type is the event`).toBe(event);
      }
    });
  }
});

describe("the crawl url rule's cases", () => {
  // The verdicts are Firecrawl's (its URL schema, hasReachableHost and checkUrl); contract-core's
  // live-requests test judges every one with the validators. Here: the cases stay in the set.
  const judged = JSON.parse(readFileSync(path.join(specDir, "test", "live-requests", "webdata", "startCrawl.json"), "utf8")) as Array<{ body: Record<string, unknown>; live: string }>;
  const verdictOf = (url: string) => judged.find((entry) => Object.keys(entry.body).length === 1 && entry.body.url === url)?.live;

  it("the judged crawl requests hold the live service's own URL cases with its verdicts", () => {
    const cases = {
      "0.0.260.0": "refused",
      "a\uD7A4a.0.\u0500A": "refused",
      "localhost:8080": "refused",
      "例子.中国": "refused",
      "https://例子.中国": "refused",
      "bücher.de": "accepted",
      "8.8.8.8": "accepted",
      "http://http://example.com": "refused",
      "image_0001.jpg": "refused",
      "example.invalidtld": "accepted",
      "ftp://example.com/file": "refused",
    };
    expect(Object.fromEntries(Object.keys(cases).map((url) => [url, verdictOf(url)]))).toEqual(cases);
  });
});
