import { getApi, loadBundle, type ApiDefinition, type ApiName } from "../document/registry.js";
import { documentedResponseFor } from "../document/walk.js";
import { isJsonMediaType, OpenApiValidators, type OperationInfo, type ValidatorOptions } from "../validation/validators.js";
import type { ErrorReply, Problem, WordingContext } from "./wording.js";

/** The reply of a registered API to a problem, in its documented error shape. */
export function refusal(api: ApiName | ApiDefinition, problem: Problem, context?: WordingContext): ErrorReply {
  return (typeof api === "string" ? getApi(api) : api).wording.word(problem, context);
}

/** Which operation a refused request hit, when it hit one: its method and path template. */
export type OperationKey = Pick<OperationInfo, "method" | "path">;

/**
 * One API's validators together with its wording: what servers that answer from the description
 * need. A refusal is worded by the API; where the operation documents an example at that status
 * that the wording prefers, or where the built body would not match the operation's documented
 * schema, the description's own example is served instead.
 */
export class ContractErrors {
  readonly api: ApiDefinition;
  readonly validators: OpenApiValidators;

  constructor(api: ApiName | ApiDefinition, options: ValidatorOptions & { validators?: OpenApiValidators } = {}) {
    this.api = typeof api === "string" ? getApi(api) : api;
    this.validators = options.validators ?? new OpenApiValidators(loadBundle(this.api), options);
  }

  reply(problem: Problem, operation?: OperationKey, context?: WordingContext): ErrorReply {
    const built = this.api.wording.word(problem, context);
    if (!operation) return built;
    const walked = this.validators.walkedOperations().find((op) => op.method === operation.method.toUpperCase() && op.path === operation.path);
    const response = walked && documentedResponseFor(walked.responses, built.status);
    const media = response?.media.find((m) => isJsonMediaType(m.mediaType.toLowerCase()));
    if (!media) return built;
    const prefers = this.api.wording.prefersExample;
    const preferred = prefers && media.examples.find((example) => prefers(problem, example.value));
    if (preferred) return { status: built.status, body: preferred.value };
    if (media.schema === undefined || this.validators.schema(media.schema)(built.body)) return built;
    const fallback = media.examples[0];
    return fallback ? { status: built.status, body: fallback.value } : built;
  }
}
