// A stand-in for the message queue (Amazon SQS) that Autumn's server hands its background jobs to:
// it takes every message, answers the AWS JSON protocol as the queue would, and keeps nothing. No
// worker runs in a conformance run, so nothing would read the messages; the server's own answers
// (balances are deducted in Redis before a job is queued) do not depend on them.
import { createHash, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { closeServer, listenOnLoopback } from "./processes.mjs";

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
  const server = createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      const target = String(request.headers["x-amz-target"] ?? "");
      const action = target.split(".").pop() || "unknown";
      let input = {};
      try {
        input = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
      } catch {
        // not the JSON protocol: answered with an empty object all the same
      }
      taken[action] = (taken[action] ?? 0) + 1;
      response.writeHead(200, { "content-type": "application/x-amz-json-1.0" });
      response.end(JSON.stringify(answer(action, input)));
    });
  });
  const port = await listenOnLoopback(server);
  return { baseUrl: `http://127.0.0.1:${port}`, taken, close: () => closeServer(server) };
}
