/**
 * Types that read request and response shapes out of an openapi-typescript `paths` interface,
 * so that handlers follow the spec: when the spec changes, the handler stops type-checking.
 */

type JsonOf<T> = T extends { content: { "application/json": infer B } } ? B : never;

/** The JSON request body of an operation. */
export type RequestBody<Op> = Op extends { requestBody?: infer R } ? JsonOf<NonNullable<R>> : never;

/** The query parameters of an operation (an empty object when it has none). */
export type QueryOf<Op> = Op extends { parameters: { query?: infer Q } } ? ([Q] extends [never | undefined] ? Record<string, never> : NonNullable<Q>) : never;

/** The path parameters of an operation (an empty object when it has none). */
export type PathOf<Op> = Op extends { parameters: { path?: infer P } } ? ([P] extends [never | undefined] ? Record<string, never> : NonNullable<P>) : never;

/** Every documented answer of an operation as `{ status, body }`, one member per status. */
export type AnswerOf<Op> = Op extends { responses: infer R }
  ? { [S in keyof R]: S extends number ? { status: S; body: JsonOf<R[S]> } : never }[keyof R]
  : never;
