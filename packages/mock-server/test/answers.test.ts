import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { contractOf } from "@api-contracts/contract-core";
import { AnswerCache } from "../src/answers.js";
import { startMockServer } from "../src/index.js";
import { post, send, type Reply } from "./support.js";

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), "mock-answers-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const outline = { id: "op", method: "get", path: "/things", responses: [{ code: "200" }] };
const answer = { statusCode: 200, headers: { "content-type": "application/json" }, body: { kept: true } };

describe("AnswerCache", () => {
  it("uses no folder that other users can write to: answers planted there are not served", () => {
    const dir = freshDir();
    const document = { openapi: "3.1.0", info: { title: "Things", version: "1" }, paths: {} };
    const planter = new AnswerCache("things", document, dir);
    planter.setOutlines([outline]);
    planter.set("GET /things  ", { ...answer, body: { planted: true } });
    planter.flush();
    chmodSync(dir, 0o777);
    const reader = new AnswerCache("things", document, dir);
    expect(reader.file).toBeUndefined();
    expect(reader.outlines).toBeUndefined();
    expect(reader.get("GET /things  ")).toBeUndefined();
    chmodSync(dir, 0o700);
    expect(new AnswerCache("things", document, dir).get("GET /things  ")).toEqual({ ...answer, body: { planted: true } });
  });

  it("gives a later start of the same description the answers kept, and a changed description none of them", () => {
    const dir = freshDir();
    const document = { openapi: "3.1.0", info: { title: "Things", version: "1" }, paths: {} };
    const first = new AnswerCache("things", document, dir);
    expect(first.outlines).toBeUndefined();
    first.setOutlines([outline]);
    first.set("GET /things  ", answer);
    first.flush();

    const again = new AnswerCache("things", structuredClone(document), dir);
    expect(again.outlines).toEqual([outline]);
    expect(again.get("GET /things  ")).toEqual(answer);

    const changed = new AnswerCache("things", { ...document, info: { ...document.info, version: "2" } }, dir);
    expect(changed.outlines).toBeUndefined();
    expect(changed.get("GET /things  ")).toBeUndefined();
    expect(changed.file).not.toBe(first.file);
    // Even the old file's content under the new description's name is not taken: it names its own description.
    writeFileSync(changed.file!, readFileSync(first.file!));
    expect(new AnswerCache("things", { ...document, info: { ...document.info, version: "2" } }, dir).get("GET /things  ")).toBeUndefined();
  });

  it("ignores a file that is corrupt or of another shape, and writes it anew", () => {
    const dir = freshDir();
    const document = { openapi: "3.1.0", info: { title: "Things", version: "1" }, paths: {} };
    const first = new AnswerCache("things", document, dir);
    first.setOutlines([outline]);
    first.set("GET /things  ", answer);
    first.flush();
    const file = first.file!;
    const whole = readFileSync(file, "utf8");
    for (const corrupt of [whole.slice(0, whole.length / 2), "", "null", "[]", JSON.stringify({ ...JSON.parse(whole), answers: { "GET /things  ": { body: 1 } } })]) {
      writeFileSync(file, corrupt);
      const reader = new AnswerCache("things", document, dir);
      expect(reader.outlines).toBeUndefined();
      expect(reader.get("GET /things  ")).toBeUndefined();
    }
    const rewriter = new AnswerCache("things", document, dir);
    rewriter.setOutlines([outline]);
    rewriter.set("GET /things  ", answer);
    rewriter.flush();
    expect(new AnswerCache("things", document, dir).get("GET /things  ")).toEqual(answer);
    // Written whole, then renamed: no temporary file is left beside it.
    expect(readdirSync(dir)).toEqual([path.basename(file)]);
  });

  it("keeps nothing on disk without a folder", () => {
    const cache = new AnswerCache("things", {}, undefined);
    cache.setOutlines([outline]);
    cache.set("k", answer);
    cache.flush();
    expect(cache.file).toBeUndefined();
    expect(cache.get("k")).toEqual(answer);
  });
});

describe("the mock's answers kept between starts", () => {
  const webKey = { authorization: "Bearer fc-0123456789abcdef0123456789abcdef" };
  const asked = async (url: string) => {
    const replies: Reply[] = [];
    replies.push(await send(url, { method: "GET", path: "/v2/team/token-usage", headers: webKey }));
    replies.push(await post(url, "/v2/crawl", { url: "https://example.com", limit: 10 }, webKey));
    replies.push(await send(url, { method: "GET", path: "/v2/team/token-usage", headers: { ...webKey, prefer: "code=401" } }));
    return replies.map(({ status, headers, json }) => ({ status, json, type: headers["content-type"] }));
  };

  it("are the answers Prism gave, from a cold start, a warm one, a corrupt file and no cache alike", async () => {
    const dir = freshDir();
    const answers = [];
    for (const cacheDir of [dir, dir, false] as const) {
      const server = await startMockServer({ service: "webdata", cacheDir });
      answers.push(await asked(server.url));
      await server.close();
    }
    const [file] = readdirSync(dir);
    expect(file).toMatch(/^webdata-[0-9a-f]{32}\.json$/);
    const kept = JSON.parse(readFileSync(path.join(dir, file!), "utf8")) as { answers: object; outlines: unknown[] };
    expect(Object.keys(kept.answers)).toHaveLength(3);
    expect(kept.outlines).toHaveLength(contractOf("webdata").validators.listOperations().length);
    writeFileSync(path.join(dir, file!), "{ not json");
    const server = await startMockServer({ service: "webdata", cacheDir: dir });
    answers.push(await asked(server.url));
    await server.close();
    for (const later of answers.slice(1)) expect(later).toEqual(answers[0]);
    expect(answers[0]!.map((a) => a.status)).toEqual([200, 200, 401]);
  });
});
