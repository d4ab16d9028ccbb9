// One API's contract as every tool holds it: its facts, its description's validators, the decision
// on a request, the judgement of an exchange and the wording of a refusal. Browser-safe: the docs
// console builds one from the bundle and the facts it was served.
import { isObject, type JsonObject } from "../document/pointer.js";
import { documentedResponseFor } from "../document/walk.js";
import type { ApiFacts } from "../generated/api-facts.js";
import { OpenApiValidators, type OperationInfo, type ValidatorOptions } from "../validation/validators.js";
import { isJsonMediaType } from "../wire/media-types.js";
import { wordingOf, type ErrorReply, type ErrorWording, type Problem, type WordingContext } from "../wording/wording.js";
import { takesWebhook, webhookSubscription, type WebhookSubscription } from "../webhooks/subscriptions.js";
import { RequestDecider, type Decision, type DecideOptions, type IncomingRequest } from "./decision.js";
import { ExchangeJudge } from "./exchange.js";
import { jobEventsOf, type JobEvents } from "./jobs.js";

/** An API as the registry lists it: its facts, under its name and the title of its description. */
export type ApiEntry = ApiFacts & { name: string; title: string };

/** Which operation a refused request hit, when it hit one: its method and path template. */
export type OperationKey = Pick<OperationInfo, "method" | "path">;

/** An answer a target gave, as far as a state refusal is recognised by it. */
export type GivenAnswer = ErrorReply;

export class ApiContract {
  readonly validators: OpenApiValidators;
  readonly decider: RequestDecider;
  readonly judge: ExchangeJudge;
  readonly wording: ErrorWording;

  constructor(
    readonly api: ApiEntry,
    description: JsonObject | OpenApiValidators,
    options: ValidatorOptions = {},
  ) {
    this.validators = description instanceof OpenApiValidators ? description : new OpenApiValidators(description, options);
    this.decider = new RequestDecider(api, this.validators);
    this.judge = new ExchangeJudge(this.decider);
    this.wording = wordingOf(api.errors);
  }

  get name(): string {
    return this.api.name;
  }

  /** The API's decision on a request; see {@link RequestDecider.decide}. */
  decide(request: IncomingRequest, options?: DecideOptions): Decision {
    return this.decider.decide(request, options);
  }

  /** The answer the API gives a request it refuses; undefined for one it serves. */
  refusalOf(decision: Decision, context?: WordingContext): ErrorReply | undefined {
    return decision.refusal && this.reply(decision.refusal, decision.operation, context);
  }

  /**
   * The API's answer to a problem, in its documented error shape. With the operation, where the
   * built body would not match the schema the operation documents at that status, the
   * operation's own first example at that status is served instead.
   */
  reply(problem: Problem, operation?: OperationKey, context?: WordingContext): ErrorReply {
    const built = this.wording.word(problem, context);
    if (!operation) return built;
    const walked = this.validators.walkedOperations().find((op) => op.method === operation.method.toUpperCase() && op.path === operation.path);
    const response = walked && documentedResponseFor(walked.responses, built.status);
    const media = response?.media.find((m) => isJsonMediaType(m.mediaType));
    if (!media || media.schema === undefined || this.validators.schema(media.schema)(built.body)) return built;
    const fallback = media.examples[0];
    return fallback ? { status: built.status, body: fallback.value } : built;
  }

  /** Whether an operation's requests start a job that reports through webhook calls (they carry the facts' `jobs.webhookMember`). */
  takesWebhook(operation: OperationKey): boolean {
    return this.api.jobs !== undefined && takesWebhook(this.validators.document, operation, this.api.jobs.webhookMember);
  }

  /** The webhook an accepted request body asks for, read as the service reads it; undefined when it asks none. */
  webhookSubscription(operation: OperationKey, body: unknown): WebhookSubscription | undefined {
    return this.api.jobs && webhookSubscription(this.validators.document, operation, body, this.api.jobs.webhookMember);
  }

  /** The webhooks a job started by the operation reports through: every event, the first, the last. */
  jobEvents(operationId: string): JobEvents | undefined {
    return this.api.jobs && jobEventsOf(this.validators, operationId, this.api.jobs);
  }

  /** The code an error body carries (`errors.codeMember`), when it has one. */
  codeOf(body: unknown): string | undefined {
    const member = this.api.errors.codeMember;
    const code = member !== undefined && isObject(body) ? body[member] : undefined;
    return typeof code === "string" ? code : undefined;
  }

  /**
   * Why an answer refusing a request the description accepts is still the documented answer (a
   * refusal that depends on the target's state: the facts' `stateRefusals`); undefined when it is not one.
   */
  stateRefusal(operationId: string, answer: GivenAnswer): string | undefined {
    const messageMember = this.api.errors.messageMember;
    const message = messageMember !== undefined && isObject(answer.body) && typeof answer.body[messageMember] === "string" ? (answer.body[messageMember] as string) : "";
    const code = this.codeOf(answer.body);
    const known = (this.api.stateRefusals ?? []).find(
      (refusal) =>
        refusal.operations.includes(operationId) &&
        refusal.status === answer.status &&
        (refusal.codes === undefined || (code !== undefined && refusal.codes.includes(code))) &&
        new RegExp(refusal.message, "i").test(message) &&
        (refusal.unlessMessage === undefined || !new RegExp(refusal.unlessMessage, "i").test(message)),
    );
    return known?.why;
  }
}
