// What openapi-typescript would make of a tiny API with one path, written by hand for the tests.
export interface Thing {
  name: string;
  size?: number;
}

type NoParameters = { query?: never; header?: never; path?: never; cookie?: never };
type JsonAnswer<T> = { headers: { [name: string]: unknown }; content: { "application/json": T } };
type Answers = { 200: JsonAnswer<Thing>; default: JsonAnswer<{ message: string }> };

export interface paths {
  "/v1/things": {
    parameters: NoParameters;
    get: { parameters: NoParameters; requestBody?: never; responses: Answers };
    put: { parameters: NoParameters; requestBody: { content: { "application/json": Thing } }; responses: Answers };
    post: { parameters: NoParameters; requestBody: { content: { "application/json": Thing } }; responses: Answers };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
