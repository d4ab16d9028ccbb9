// readAnswerBody: the one bounded reader of an answer the kit and the docs console use.
import { describe, expect, it } from "vitest";
import { readAnswerBody } from "../src/contract.js";

/** A streamed answer of `chunks`, recording whether its reader cancelled it. */
function streamed(chunks: string[], headers: Record<string, string> = {}) {
  const state = { cancelled: false, pulled: 0 };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[state.pulled++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(new TextEncoder().encode(chunk));
    },
    cancel() {
      state.cancelled = true;
    },
    // Nothing is pulled before a read asks for it.
  }, { highWaterMark: 0 });
  return { response: new Response(body, { headers }), state };
}

describe("readAnswerBody", () => {
  it("gives the whole body when it fits, however it is chunked", async () => {
    const { response } = streamed(["{\"a\":", "1}"]);
    expect(new TextDecoder().decode(await readAnswerBody(response, 7))).toBe('{"a":1}');
    expect(await readAnswerBody(new Response(null, { status: 204 }), 0)).toEqual(new Uint8Array(0));
  });

  it("refuses an answer whose Content-Length is over the limit before reading any of it", async () => {
    const { response, state } = streamed(["0123456789"], { "content-length": "10" });
    expect(await readAnswerBody(response, 9)).toBeUndefined();
    expect(state).toEqual({ cancelled: true, pulled: 0 });
  });

  it("stops reading a streamed answer as soon as it passes the limit, and cancels the rest", async () => {
    const { response, state } = streamed(["aaaa", "bbbb", "cccc", "dddd"]);
    expect(await readAnswerBody(response, 6)).toBeUndefined();
    expect(state.cancelled).toBe(true);
    expect(state.pulled).toBeLessThan(4);
  });
});
