// Sends a fixed list of raw requests to a server and keeps each exchange in the recorded format:
// method, path, query, which credential form was sent (never its value), headers, request body,
// status, content type, response body and the server's source commit.
import { Buffer } from "node:buffer";
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { contractOf, fillPath, isJsonMediaType, queryString, readAnswerBody, redactor } from "@api-contracts/contract-core";

const require = createRequire(import.meta.url);

/** Most bytes of one answer kept; a longer answer is recorded as a note of its size. */
const MAX_ANSWER_BYTES = 256 * 1024;

/** The folder of an export of the spec package that names one (`./recorded/*`, `./live-requests/*`). */
export function specFolder(exported) {
  const manifest = require.resolve("@api-contracts/spec/package.json");
  const target = JSON.parse(readFileSync(manifest, "utf8")).exports[exported];
  if (!target) throw new Error(`@api-contracts/spec exports no ${exported}`);
  return path.join(path.dirname(manifest), target.replace("/*", ""));
}

/**
 * Every request of `@api-contracts/spec/live-requests/<api>/*.json` (files in name order), each
 * labelled with the live verdict its source gives (`live`, and in its note), as a request of a run's
 * list: its operation's method, its path (the operation's when it names none), query, headers and
 * body, with the run's key.
 */
export function judgedRequests(api) {
  const operations = new Map(contractOf(api).validators.listOperations().map((op) => [op.operationId, op]));
  const dir = path.join(specFolder("./live-requests/*"), api);
  const files = readdirSync(dir).filter((file) => file.endsWith(".json")).sort();
  return files.flatMap((file) =>
    JSON.parse(readFileSync(path.join(dir, file), "utf8")).map(({ operation, path: concrete, query, headers, body, live, source, why }) => ({
      operation,
      method: operations.get(operation).method.toUpperCase(),
      path: concrete ?? operations.get(operation).path,
      ...(query === undefined ? {} : { query }),
      ...(headers === undefined ? {} : { headers }),
      ...(body === undefined ? {} : { body }),
      auth: "bearer",
      live,
      note: `judged request (${live} by ${source.split(" ")[0]}): ${why}`,
    })),
  );
}

/**
 * A request of a list (or of a record: its `authorization` form, `requestBody`, `requestRaw`) as it
 * goes on the wire: method, target (its concrete path and query), headers and body. A body is sent as
 * JSON; `headers` (never a credential) come last, so that a request may name another Content-Type.
 */
export function wireRequest(request, apiKey) {
  const raw = request.raw ?? request.requestRaw;
  const body = request.body ?? request.requestBody;
  const sent = raw ?? (body === undefined ? undefined : JSON.stringify(body));
  // The `Authorization` of the credential form: the run's key as Bearer, a made-up Basic pair, or none.
  const authorization = { bearer: `Bearer ${apiKey}`, basic: `Basic ${Buffer.from("conformance:not-a-key").toString("base64")}` }[request.auth ?? request.authorization];
  const headers = {
    ...(authorization ? { authorization } : {}),
    ...(sent === undefined ? {} : { "content-type": "application/json" }),
    ...(request.headers ?? {}),
  };
  return { method: request.method, target: `${request.path}${queryString(request.query ?? {})}`, headers, ...(sent === undefined ? {} : { body: sent }) };
}

/**
 * Sends one request of the list and returns its exchange. `request.path` may hold `{name}`
 * placeholders filled from `values` (ids an earlier answer gave: `request.capture`, `{name:
 * member}`, puts the answer's member there); `request.headers` (never a credential) are sent and recorded.
 */
export async function exchange(baseUrl, request, { apiKey, server, values, timeoutMs }) {
  const path = fillPath(request.path, values, (name) => {
    throw new Error(`${request.operation}: no value for {${name}} (an earlier request should have given it)`);
  });
  const sent = wireRequest({ ...request, path }, apiKey);
  const response = await fetch(new URL(sent.target, baseUrl), { method: sent.method, headers: sent.headers, body: sent.body, signal: AbortSignal.timeout(timeoutMs), redirect: "manual" });
  const bytes = await readAnswerBody(response, MAX_ANSWER_BYTES);
  const text = bytes === undefined ? `[an answer of more than ${MAX_ANSWER_BYTES} bytes, not kept]` : redactor([apiKey])(Buffer.from(bytes).toString("utf8"));
  const contentType = response.headers.get("content-type") ?? "";
  let responseBody = text;
  if (bytes !== undefined && isJsonMediaType(contentType)) {
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
    path,
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
