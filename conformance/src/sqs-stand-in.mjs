// A stand-in for the message queue (Amazon SQS) that Autumn's server hands its background jobs to:
// it takes every message, answers the AWS JSON protocol as the queue would, and keeps nothing. No
// worker runs in a conformance run, so nothing would read the messages; the server's own answers
// (balances are deducted in Redis before a job is queued) do not depend on them.
import { createHash, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { readBody } from "@api-contracts/contract-core/server";
import { closeServer, listenOnLoopback } from "./processes.mjs";

/** SQS's largest message (and batch), with room for the JSON protocol's envelope. */
const MAX_MESSAGE_BYTES = 512 * 1024;

const md5 = (text) => createHash("md5").update(text, "utf8").digest("hex");

function answer(action, input) {
  if (action === "SendMessage") return { MessageId: randomUUID(), MD5OfMessageBody: md5(input.MessageBody ?? "") };
  if (action === "SendMessageBatch") {
    const entries = Array.isArray(input.Entries) ? input.Entries : [];
    return { Successful: entries.map((entry) => ({ Id: entry.Id, MessageId: randomUUID(), MD5OfMessageBody: md5(entry.MessageBody ?? "") })), Failed: [] };
  }
  if (action === "ReceiveMessage") return { Messages: [] };
  if (action === "GetQueueUrl") return { QueueUrl: `http://127.0.0.1/000000000000/${input.QueueName ?? "queue"}` };
  return {};
}

/**
 * Starts the stand-in on a free port of 127.0.0.1. Resolves with its base URL, a count of the
 * messages taken per action, and `close()`.
 */
export async function startSqsStandIn() {
  const taken = {};
  const server = createServer(async (request, response) => {
    // SQS takes at most 256 KiB a message (or a batch); a longer body is no message.
    const body = await readBody(request, MAX_MESSAGE_BYTES).catch(() => undefined);
    if (body === undefined) return void response.writeHead(413, { connection: "close" }).end();
    const action = String(request.headers["x-amz-target"] ?? "").split(".").pop() || "unknown";
    let input = {};
    try {
      input = JSON.parse(body.toString("utf8") || "{}");
    } catch {
      // not the JSON protocol: answered with an empty object all the same
    }
    taken[action] = (taken[action] ?? 0) + 1;
    response.writeHead(200, { "content-type": "application/x-amz-json-1.0" }).end(JSON.stringify(answer(action, input)));
  });
  const port = await listenOnLoopback(server);
  return { baseUrl: `http://127.0.0.1:${port}`, taken, close: () => closeServer(server) };
}
