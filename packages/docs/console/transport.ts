// Sending a request: through the docs server's relay when the page was served by it, else from the
// page itself. A relay's own failure is the relay speaking, never the target's answer.
import { parseHttpUrl, readAnswerBody } from "@api-contracts/contract-core/contract";
import type { Answer } from "./judge.js";

export interface Outgoing {
  method: string;
  baseUrl: string;
  pathAndQuery: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** The relay's path on this page's origin: `/_relay`. */
  relay: string | undefined;
  signal: AbortSignal;
}

export type Sent =
  | { kind: "answer"; answer: Answer; ms: number }
  | { kind: "relay-error"; message: string }
  | { kind: "no-answer"; message: string };

/** The largest answer body read; the relay bounds what it forwards, a direct answer is bounded here. */
const BODY_LIMIT = 8 * 1024 * 1024;

const HOW_TO_RELAY =
  "Serve these docs with `npm start` (http://127.0.0.1:4000 by default): the docs server relays the console's requests, so the target needs no CORS headers.";

export async function send(request: Outgoing): Promise<Sent> {
  let url: string;
  const headers = { ...request.headers };
  if (request.relay) {
    url = `${request.relay}${request.pathAndQuery}`;
    headers["x-relay-target"] = request.baseUrl.replace(/\/+$/, "");
  } else {
    if (!parseHttpUrl(request.baseUrl)) return { kind: "no-answer", message: `The base URL "${request.baseUrl}" is not an absolute http or https URL.` };
    url = `${request.baseUrl.replace(/\/+$/, "")}${request.pathAndQuery}`;
  }
  const started = performance.now();
  let response: Response;
  try {
    response = await fetch(url, { method: request.method, headers, body: request.body, signal: request.signal, cache: "no-store", credentials: "omit", redirect: "manual" });
  } catch (error) {
    if (request.signal.aborted) return { kind: "no-answer", message: "Cancelled: no answer was waited for." };
    if (request.relay) return { kind: "no-answer", message: `The docs server did not answer (${error instanceof Error ? error.message : String(error)}).` };
    return {
      kind: "no-answer",
      message: `No answer could be read from ${request.baseUrl}: either it is not running, or it refused this page's origin (it sends no CORS headers, as the mock, the reference server and most services do not). ${HOW_TO_RELAY}`,
    };
  }
  const relayError = request.relay ? response.headers.get("x-relay-error") : null;
  let bodyText: string;
  try {
    const bytes = await readAnswerBody(response, BODY_LIMIT);
    if (bytes === undefined) throw new Error(`the answer's body is more than the console reads (${BODY_LIMIT} bytes)`);
    bodyText = new TextDecoder().decode(bytes);
  } catch (error) {
    if (request.signal.aborted) return { kind: "no-answer", message: "Cancelled while the answer was coming." };
    return { kind: "no-answer", message: `The answer broke off: ${error instanceof Error ? error.message : String(error)}` };
  }
  const ms = performance.now() - started;
  if (relayError) {
    let sentence = "";
    try {
      sentence = String((JSON.parse(bodyText) as { relayError?: unknown }).relayError ?? "");
    } catch {
      // The relay always words its failures; a body that is not its JSON adds nothing.
    }
    return { kind: "relay-error", message: `The docs server's relay answered ${response.status} (${relayError}), not the target: ${sentence}` };
  }
  return { kind: "answer", answer: { status: response.status, headers: targetHeaders(response.headers, request.relay !== undefined), bodyText }, ms };
}

/** The target's headers; in a relayed answer without the relay's own mark, and its `Vary: X-Relay-Target` taken out of the target's `Vary`. */
function targetHeaders(answer: Headers, relayed: boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  answer.forEach((value, name) => {
    if (relayed && name === "x-relay") return;
    if (!relayed || name !== "vary") return void (headers[name] = value);
    const vary = value.split(",").map((token) => token.trim()).filter((token) => token !== "" && token.toLowerCase() !== "x-relay-target");
    if (vary.length > 0) headers.vary = vary.join(", ");
  });
  return headers;
}
