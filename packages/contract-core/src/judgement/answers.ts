// What an injected error status looks like: the operation's own documented answer at that status,
// so that a mock and a proxy inject the same bytes a client of the contract is promised.
import { cached, follow, isObject, type JsonObject } from "../document/pointer.js";
import type { OpenApiValidators } from "../validation/validators.js";
import { isJsonMediaType } from "../wire/media-types.js";
import { examplesOf } from "../document/walk.js";

/** An answer made up by an injected rule: status, headers and the JSON body, as bytes. */
export interface InjectedAnswer {
  status: number;
  /** Lower-case names: `content-type`, and each documented header that has an example (`retry-after`). */
  headers: Record<string, string>;
  body: Buffer;
}

const cache = new WeakMap<OpenApiValidators, Map<string, InjectedAnswer | null>>();

/** The value a header object documents: its `example`, its first named example, then its schema's. */
function headerExample(document: JsonObject, raw: unknown): unknown {
  const { node } = follow(document, raw, "");
  if (!isObject(node)) return undefined;
  // examplesOf lists the named examples first and `example` last.
  const examples = examplesOf(document, node);
  if (examples.length > 0) return (Object.hasOwn(node, "example") ? examples.at(-1)! : examples[0]!).value;
  const schema = follow(document, node.schema, "").node;
  if (!isObject(schema)) return undefined;
  if (Object.hasOwn(schema, "const")) return schema.const;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  return Object.hasOwn(schema, "default") ? schema.default : undefined;
}

/**
 * The answer an operation documents for `status` (exactly that code): its first JSON example, with
 * each documented header that has an example. Undefined when the operation documents no such
 * answer, or one without an example to serve.
 */
export function documentedAnswer(validators: OpenApiValidators, operationId: string, status: number): InjectedAnswer | undefined {
  const answer = cached(cached(cache, validators, () => new Map()), `${operationId} ${status}`, () => {
    const operation = validators.walkedOperations().find((op) => op.operationId === operationId);
    const response = operation?.responses.find((r) => r.status === String(status));
    const media = response?.media.find((m) => isJsonMediaType(m.mediaType.toLowerCase()) && m.examples.length > 0);
    if (!response || !media) return null;
    const headers: Record<string, string> = { "content-type": media.mediaType };
    const documented = isObject(response.object.headers) ? response.object.headers : {};
    for (const [name, raw] of Object.entries(documented)) {
      const value = headerExample(validators.document, raw);
      if (value !== undefined && value !== null && name.toLowerCase() !== "content-type") headers[name.toLowerCase()] = String(value);
    }
    return { status, headers, body: Buffer.from(JSON.stringify(media.examples[0]!.value)) };
  });
  return answer ?? undefined;
}
