// Reading a fetched answer's body within a limit, for the tools that fetch an answer to judge it (the
// kit, the docs console): an answer is untrusted input, and its size is known only as it streams.

/**
 * The body of `response`, at most `limit` bytes of it. Undefined when the answer is longer: when
 * its Content-Length says so, before anything is read, or as soon as more has streamed in; the rest
 * is then left unread (the stream is cancelled). A read that fails (a connection cut, an abort)
 * rejects as the stream does.
 */
export async function readAnswerBody(response: Response, limit: number): Promise<Uint8Array<ArrayBuffer> | undefined> {
  if (Number(response.headers.get("content-length")) > limit) {
    await response.body?.cancel();
    return undefined;
  }
  const reader = response.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let next; reader && !(next = await reader.read()).done; ) {
    size += next.value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(next.value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
