import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain ES module of the repository's tooling, without type declarations
import { findAdditions, findBreakingChanges } from "../breaking-changes.mjs";

type Finding = { where: string; change: string };
const specDir = path.dirname(createRequire(import.meta.url).resolve("@api-contracts/spec/package.json"));
const released = JSON.parse(readFileSync(path.join(specDir, "dist/webdata.openapi.json"), "utf8"));

function changed(edit: (document: any) => void): Finding[] {
  const next = structuredClone(released);
  edit(next);
  return findBreakingChanges(released, next);
}

describe("breaking-change check", () => {
  it("finds nothing between a bundle and itself", () => {
    expect(findBreakingChanges(released, structuredClone(released))).toEqual([]);
  });

  it("additions a client cannot notice are not breaking: a new optional request member, a new operation", () => {
    const findings = changed((doc) => {
      doc.components.schemas.CrawlRequest.properties.priority = { type: "integer", description: "new" };
      doc.paths["/v2/crawl/{id}/errors"] = { get: { responses: { "200": { description: "ok" } } } };
    });
    expect(findings).toEqual([]);
  });

  it("a removed operation is breaking", () => {
    const findings = changed((doc) => delete doc.paths["/v2/team/token-usage"]);
    expect(findings).toEqual([{ where: "GET /v2/team/token-usage", change: "operation was removed" }]);
  });

  it("a request member that becomes required is breaking", () => {
    const findings = changed((doc) => doc.components.schemas.CrawlRequest.required.push("prompt"));
    expect(findings).toContainEqual({ where: "POST /v2/crawl body/prompt", change: "request member is now required" });
  });

  it("a request enum that loses a value is breaking, a response enum that gains one is breaking", () => {
    const findings = changed((doc) => {
      doc.components.schemas.CrawlRequest.properties.sitemap.enum = ["skip", "include"];
      doc.components.schemas.InteractSession.properties.status.enum.push("paused");
    });
    expect(findings).toContainEqual({ where: "POST /v2/crawl body/sitemap", change: 'request no longer accepts the value(s) "only"' });
    expect(findings.map((f) => f.change)).toContain('response may now send the value(s) "paused"');
  });

  it("a tighter request limit and a response member no longer always sent are breaking", () => {
    const findings = changed((doc) => {
      doc.components.schemas.CrawlRequest.properties.prompt.maxLength = 500;
      doc.components.schemas.CrawlStarted.required = ["success", "id"];
    });
    expect(findings).toContainEqual({ where: "POST /v2/crawl body/prompt", change: "request is more restricted: maxLength 10000 -> 500" });
    expect(findings).toContainEqual({ where: "POST /v2/crawl 200/url", change: "response member is no longer always sent" });
  });

  it("added webhooks and operations are listed as additions, not as breaking", () => {
    const before = structuredClone(released);
    delete before.webhooks["crawl.page"];
    delete before.paths["/v2/browser"];
    expect(findBreakingChanges(before, released)).toEqual([]);
    expect(findAdditions(before, released)).toEqual([
      { where: "GET /v2/browser", change: "operation was added" },
      { where: "webhook crawl.page", change: "webhook was added" },
    ]);
  });

  it("a removed webhook, a payload that promises less and a signature header no longer always sent are breaking", () => {
    const findings = changed((doc) => {
      delete doc.webhooks["monitor.page"];
      doc.components.schemas.WebhookPayload.required = ["success", "type", "id", "data"];
      doc.components.schemas.MonitorCheckResult.properties.status.enum.push("skipped");
    });
    expect(findings).toContainEqual({ where: "webhook monitor.page", change: "webhook was removed" });
    expect(findings).toContainEqual({ where: "webhook crawl.started payload/webhookId", change: "response member is no longer always sent" });
    expect(findings).toContainEqual({ where: "webhook monitor.check.completed payload/data/items/status", change: 'response may now send the value(s) "skipped"' });
    const entitlements = JSON.parse(readFileSync(path.join(specDir, "dist/entitlements.openapi.json"), "utf8"));
    const unsigned = structuredClone(entitlements);
    unsigned.components.parameters["svix-signature"].required = false;
    expect(findBreakingChanges(entitlements, unsigned)).toContainEqual({ where: "webhook balances.limit_reached header:svix-signature", change: "header is no longer always sent" });
  });

  it("a request map that refuses some member names is breaking", () => {
    const before = structuredClone(released);
    delete before.components.schemas.Webhook.properties.headers.propertyNames;
    expect(findBreakingChanges(before, released)).toContainEqual({ where: "POST /v2/crawl body/webhook/oneOf/1/headers", change: "request now restricts member names" });
  });

  it("a request rule (x-rules) that is added or accepts less is breaking", () => {
    const findings = changed((doc) => {
      doc.components.schemas.JsonFormat["x-rules"].find((rule: { member: string }) => rule.member === "prompt").maxLength = 500;
      doc.components.schemas.Webhook["x-rules"].push({ rule: "utf16-length", member: "url", maxLength: 2048, description: "url must be at most 2048 UTF-16 code units long" });
      // A setting whose direction is unknown counts as accepting less.
      doc.components.schemas.CrawlRequest["x-rules"].find((rule: { rule: string }) => rule.rule === "url").defaultScheme = "https";
    });
    expect(findings).toContainEqual({ where: "POST /v2/crawl body/scrapeOptions/formats/items/oneOf/1/oneOf/1/prompt", change: "request rule accepts less than before: utf16-length (prompt must be at most 10000 UTF-16 code units long)" });
    expect(findings).toContainEqual({ where: "POST /v2/crawl body/webhook/oneOf/1/url", change: "request has a new rule: utf16-length (url must be at most 2048 UTF-16 code units long)" });
    expect(findings.filter((finding) => finding.where === "POST /v2/crawl body/url").map((finding) => finding.change)).toEqual([expect.stringMatching(/^request rule accepts less than before: url /)]);
  });

  it("a request rule (x-rules) that is removed or accepts more is not breaking", () => {
    const findings = changed((doc) => {
      doc.components.schemas.JsonFormat["x-rules"].find((rule: { member: string }) => rule.member === "prompt").maxLength = 20000;
      const crawlUrl = doc.components.schemas.CrawlRequest["x-rules"].find((rule: { rule: string }) => rule.rule === "url");
      crawlUrl.fileExtensions = crawlUrl.fileExtensions.filter((extension: string) => extension !== "pdf");
      crawlUrl.schemes.push("ftp");
      delete crawlUrl.singleColonBeforeFirstDot;
      doc.components.schemas.Webhook["x-rules"] = [];
    });
    expect(findings.filter((finding) => finding.where.startsWith("POST"))).toEqual([]);
  });

  it("a response rule (x-rules) that is removed or accepts more is breaking", () => {
    const removed = changed((doc) => (doc.components.schemas.ScrapeOptions["x-rules"] = []));
    expect(removed.filter((finding) => finding.where.startsWith("POST"))).toEqual([]);
    expect(removed).toContainEqual({ where: "GET /v2/monitor/{monitorId} 200/data/targets/items/oneOf/0/scrapeOptions/waitFor", change: "response is no longer held to the rule at-most-fraction (waitFor must not exceed half of timeout)" });
    const looser = changed((doc) => (doc.components.schemas.ScrapeOptions["x-rules"].find((rule: { rule: string }) => rule.rule === "at-most-fraction").fraction = 0.6));
    expect(looser).toContainEqual({ where: "GET /v2/monitor/{monitorId} 200/data/targets/items/oneOf/0/scrapeOptions/waitFor", change: "response rule accepts more than before: at-most-fraction (waitFor must not exceed half of timeout)" });
    const stricter = changed((doc) => (doc.components.schemas.ScrapeOptions["x-rules"].find((rule: { rule: string }) => rule.rule === "at-most-fraction").fraction = 0.4));
    expect(stricter.filter((finding) => finding.where.startsWith("GET"))).toEqual([]);
  });

  it("a response member that may now be null is breaking", () => {
    const findings = changed((doc) => {
      doc.components.schemas.CrawlStarted.properties.id.type = ["string", "null"];
    });
    expect(findings).toContainEqual({ where: "POST /v2/crawl 200/id", change: "response may now send type null" });
  });
});
