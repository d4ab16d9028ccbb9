// Sends a fixed list of raw requests to a server and keeps each exchange in the recorded format:
// method, path, query, which credential form was sent (never its value), request body, status,
// content type, response body and the server's source commit.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { isJsonMediaType, redactor } from "@api-contracts/contract-core";
import { DELIVERIES_FILE, KNOWN_FILE } from "./judgement.mjs";

/** Most bytes of one answer kept; a longer answer is cut and marked. */
const MAX_ANSWER_BYTES = 256 * 1024;

function authorizationHeader(form, apiKey) {
  if (form === "bearer") return { authorization: `Bearer ${apiKey}` };
  if (form === "basic") return { authorization: `Basic ${Buffer.from("conformance:not-a-key").toString("base64")}` };
  return {};
}

/** Reads at most MAX_ANSWER_BYTES of an answer's body as text. */
async function boundedText(response) {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      return `${Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString("utf8")}[cut at ${MAX_ANSWER_BYTES} bytes]`;
    }
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Sends one request of the list and returns its exchange. `request.path` may hold `{name}`
 * placeholders filled from `values` (ids an earlier answer gave: `request.capture`, `{name:
 * member}`, puts the answer's member there); `request.headers` (never a credential) are sent and recorded.
 */
export async function exchange(baseUrl, request, { apiKey, server, values, timeoutMs }) {
  const concretePath = request.path.replace(/\{(\w+)\}/g, (_m, name) => {
    if (!(name in values)) throw new Error(`${request.operation}: no value for {${name}} (an earlier request should have given it)`);
    return values[name];
  });
  const url = new URL(concretePath, baseUrl);
  for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.set(name, String(value));
  const hasBody = request.body !== undefined || request.raw !== undefined;
  const response = await fetch(url, {
    method: request.method,
    headers: {
      ...authorizationHeader(request.auth, apiKey),
      ...(hasBody ? { "content-type": "application/json" } : {}),
      ...(request.headers ?? {}),
    },
    ...(hasBody ? { body: request.raw ?? JSON.stringify(request.body) } : {}),
    signal: AbortSignal.timeout(timeoutMs),
    redirect: "manual",
  });
  const text = redactor([apiKey])(await boundedText(response));
  const contentType = response.headers.get("content-type") ?? "";
  let responseBody = text;
  if (isJsonMediaType(contentType.split(";")[0].trim().toLowerCase())) {
    try {
      responseBody = JSON.parse(text);
    } catch {
      // kept as text: the server called it JSON but it is not
    }
  }
  for (const [name, member] of Object.entries(request.capture ?? {})) {
    if (typeof responseBody?.[member] === "string") values[name] = responseBody[member];
  }
  return {
    operation: request.operation,
    method: request.method,
    path: concretePath,
    ...(request.query ? { query: request.query } : {}),
    authorization: request.auth,
    ...(request.headers ? { headers: request.headers } : {}),
    ...(request.body !== undefined ? { requestBody: request.body } : {}),
    ...(request.raw !== undefined ? { requestRaw: request.raw } : {}),
    status: response.status,
    contentType,
    responseBody,
    server,
    note: request.note,
  };
}

/**
 * Writes the exchanges as one JSON array per operation (`<operationId>.json`; requests outside
 * the contract go to `outside-contract.json`) and, when given, the crawls started with a webhook
 * (`webhook-deliveries.json`), replacing the earlier records of the folder but keeping its
 * known-differences.json.
 */
export function writeRecords(dir, exchanges, webhookCrawls) {
  mkdirSync(dir, { recursive: true });
  const byFile = new Map();
  for (const item of exchanges) {
    const file = `${item.operation ?? "outside-contract"}.json`;
    byFile.set(file, [...(byFile.get(file) ?? []), item]);
  }
  if (webhookCrawls) byFile.set(DELIVERIES_FILE, webhookCrawls);
  for (const file of readdirSync(dir)) {
    if (file.endsWith(".json") && file !== KNOWN_FILE && !byFile.has(file)) rmSync(path.join(dir, file));
  }
  for (const [file, items] of byFile) writeFileSync(path.join(dir, file), `${JSON.stringify(items, null, 2)}\n`);
  return [...byFile.keys()].sort();
}
