/**
 * Types that read request and response shapes out of an openapi-typescript `operations` interface,
 * so that handlers follow the spec: when the spec changes, the handler stops type-checking.
 */
import type { Handler } from "./http.js";

type JsonOf<T> = T extends { content: { "application/json": infer B } } ? B : never;

/** The query or path parameters of an operation (an empty object when it has none). */
type ParametersOf<Op, In extends "query" | "path"> = Op extends { parameters: { [K in In]?: infer P } } ? ([P] extends [never | undefined] ? Record<string, never> : NonNullable<P>) : never;

/** Every documented answer of an operation as `{ status, body }`, one member per status. */
export type AnswerOf<Op> = Op extends { responses: infer R }
  ? { [S in keyof R]: S extends number ? { status: S; body: JsonOf<R[S]> } : never }[keyof R]
  : never;

/** The header parameters of an operation, by lower-case name, beside every other header received. */
export type HeadersOf<Op> = (Op extends { parameters: { header?: infer H } } ? ([H] extends [never | undefined] ? unknown : Partial<NonNullable<H>>) : unknown) & Record<string, unknown>;

/** An operation's request as the contract's decision read it: parameters coerced by their schemas, the body parsed. */
export interface ReadOf<Op> {
  path: ParametersOf<Op, "path">;
  query: ParametersOf<Op, "query">;
  headers: HeadersOf<Op>;
  body: Op extends { requestBody?: infer R } ? JsonOf<NonNullable<R>> : never;
}

/**
 * Handlers of a description's operations (its `operations` interface, which holds its webhooks too),
 * by operationId; the server refuses to start without one for every operation its description serves.
 */
export type Handlers<Operations> = { [Id in keyof Operations]?: (read: ReadOf<Operations[Id]>) => AnswerOf<Operations[Id]> };

/**
 * Handlers typed by a description's operations, as the server calls them: each with a request the
 * contract's decision accepted, so read by that operation's own schemas.
 */
export function served<Operations>(handlers: Handlers<Operations>): Record<string, Handler> {
  return handlers as unknown as Record<string, Handler>;
}
