// Generated from @api-contracts/spec/api.schema.json by scripts/generate-types.mjs.
// Do not edit: change the schema and run `npm run generate -w @api-contracts/contract-core`
// (the build does it too).

/**
 * What the tools know of one API besides its OpenAPI description: how its keys look, where its mock listens, how it reads and refuses a request (in the live service's order) and how it words each refusal. Every server, judge and generator reads these facts instead of knowing the API by name.
 */
export interface ApiFacts {
  /**
   * The port its mock listens on when none is given.
   */
  mockPort: number;
  /**
   * Its API keys, sent as `Authorization: Bearer <key>`.
   */
  key: {
    /**
     * How every key starts (`am_sk_`); tools use it to spot a key given for the wrong API.
     */
    prefix: string;
    /**
     * The environment variable samples and tools read a key from.
     */
    variable: string;
    /**
     * How the service reads the key from `Authorization`: `rfc6750` (the default): `Bearer` in any case and one token; `exact-bearer`: the header starts with `Bearer ` exactly (anything else carries no key) and the rest, trimmed, is the key; `second-word`: the second space-separated word is the key, whatever the first.
     */
    reading?: "rfc6750" | "exact-bearer" | "second-word";
    /**
     * A prefix the service checks before it looks a key up: a key without it is refused with `unauthorized-wrong-prefix` (or, where the facts word none, `unauthorized-unknown-key`).
     */
    checkedPrefix?: string;
  };
  /**
   * The typed client of this repository that speaks it; an API without one is called through a client made from its description.
   */
  client?: {
    /**
     * The npm package.
     */
    package: string;
    /**
     * The function of its main entry that makes a client.
     */
    factory: string;
  };
  limits: {
    /**
     * The largest request body a server of this API reads, in bytes, unless it is told another; a larger one is refused as too large.
     */
    bodyBytes: number;
  };
  /**
   * How the service reads a request and in which order it refuses one.
   */
  requests: {
    /**
     * How a body is read, by its Content-Type: the first entry with a media type that covers it decides (`type/*` and `* /*` cover many). A body whose Content-Type no entry covers is read as none.
     *
     * @minItems 1
     */
    bodies: {
      /**
       * @minItems 1
       */
      mediaTypes: string[];
      /**
       * `json`: parsed as JSON; `form`: parsed as `application/x-www-form-urlencoded`, brackets nesting members (`a[b]=1`) as the `qs` library reads them; `empty`: not read, the body counts as an empty object; `refuse`: refused with the `unsupported-media-type` refusal.
       */
      read: "json" | "form" | "empty" | "refuse";
      /**
       * What a `json` body that does not parse is: `refuse` (the `malformed-json` refusal) or `empty` (read as an empty object). Default `refuse`.
       */
      malformed?: "refuse" | "empty";
    }[];
    /**
     * What a request without a body is, for an operation that takes one: `absent` (a required body is missing) or `empty-object` (read as `{}`). Default `absent`.
     */
    empty?: "absent" | "empty-object";
    /**
     * The service's checks in its order; the first that fails answers. `authorization`: the bearer key; `body`: reading the body (its media type and syntax); `parameters`: the path, query and header parameters not checked by an earlier step; `schema`: the body's schema and x-rules. An object checks only the parameters it names (`header x-api-version`) and refuses with the named refusal of `errors.refusals`. `body`, `parameters` and `schema` must each appear.
     *
     * @minItems 4
     */
    checks: (
      | ("authorization" | "body" | "parameters" | "schema")
      | {
          /**
           * @minItems 1
           */
          parameters: string[];
          refusal: string;
        }
    )[];
  };
  /**
   * How the service words a refusal: one entry per kind, its status and its body, in which `{name}` is filled in (see `placeholders`).
   */
  errors: {
    /**
     * Values of placeholders a server may set per answer (the key's environment, `env`), with their defaults.
     */
    placeholders?: {
      [k: string]: string;
    };
    /**
     * The member of an error body that carries its machine-readable code, when it has one.
     */
    codeMember?: string;
    /**
     * The member of an error body that carries its sentence for people.
     */
    messageMember?: string;
    /**
     * For bodies that list problems as zod issues (`{issues}`): the issue code of each JSON Schema keyword; any other keyword is `custom`.
     */
    issueCodes?: {
      [k: string]: string;
    };
    /**
     * The refusals by kind: `invalid` (and `invalid-unknown-member`, used instead when a body member is not documented), `unauthorized-missing`, `unauthorized-empty`, `unauthorized-malformed`, `unauthorized-unknown-key` (and `unauthorized-wrong-prefix`, used for a key without `key.checkedPrefix` where given), `not-found`, `method-not-allowed`, `malformed-json`, `unsupported-media-type`, `bad-request`, `too-large`, `timeout`, `bad-gateway`, `internal`, and those the checks name. Placeholders: `{problems}` (the problems in one sentence), `{issues}` (as a whole value: the problems as zod issues), `{value}` (the value of the parameter at fault), `{method}`, `{path}`, `{allowed}`, `{limit}`, `{received}`, `{supported}`, `{message}`, and those of `placeholders`.
     */
    refusals: {
      [k: string]: {
        status: number;
        /**
         * The body, as JSON, with placeholders in its strings.
         */
        body: {
          [k: string]: unknown;
        };
      };
    };
  };
  /**
   * Refusals of a request the description accepts that depend on what the target holds (a lock that is not live), as the description's prose documents them: an answer that matches one is not a valid request refused.
   */
  stateRefusals?: {
    /**
     * @minItems 1
     */
    operations: string[];
    status: number;
    /**
     * The codes (`errors.codeMember`) it carries.
     */
    codes?: string[];
    /**
     * A regular expression (JavaScript, case-insensitive) its message (`errors.messageMember`) matches.
     */
    message: string;
    /**
     * A regular expression its message must not match (a validation message worded like it).
     */
    unlessMessage?: string;
    why: string;
  }[];
  /**
   * Work a request starts and reports on through webhook calls (a crawl), and the members those calls and requests use.
   */
  jobs?: {
    /**
     * The request body member that subscribes to the job's calls: a URL, or an object with `url`, `headers`, `metadata` and `events`.
     */
    webhookMember: string;
    /**
     * The last part of the event (after its last `.`) sent first.
     */
    firstEvent: string;
    /**
     * The last part of the event sent last.
     */
    lastEvent: string;
  };
}
