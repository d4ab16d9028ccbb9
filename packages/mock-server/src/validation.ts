import type { Ajv2020, ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import { BUNDLE_ID, deref, escapePointer, unescapePointer, type Json } from "./document.js";
import type { Violation } from "./errors.js";

/** The parts of a request that the description constrains, as the server received them. */
export interface RequestParts {
  /** The request path, already matched to the operation's path template. */
  path: string;
  query: Record<string, string | string[]>;
  /** Header values by lower-case name. */
  headers: Record<string, string>;
  /** The parsed JSON body; `undefined` when the request had none. */
  body: unknown;
}

/** Checks one request against its operation; an empty list means the request is valid. */
export type RequestValidator = (parts: RequestParts) => Violation[];

type Location = "path" | "query" | "header";

interface Parameter {
  name: string;
  in: Location;
  required: boolean;
  schemaRef: string;
}

/** Turns ajv's errors into violations that name the member itself, below `where`. */
export function toViolations(errors: ErrorObject[] | null | undefined, where: string): Violation[] {
  return (errors ?? []).map((error) => {
    const location = [where, ...error.instancePath.split("/").slice(1).map(unescapePointer)];
    const params = error.params as Record<string, unknown>;
    // ajv reports a missing or unknown member at its parent; the client wants the member itself.
    const member = params.missingProperty ?? params.additionalProperty ?? params.unevaluatedProperty;
    if (typeof member === "string") location.push(member);
    const allowed = Array.isArray(params.allowedValues) ? `: ${params.allowedValues.join(", ")}` : "";
    return { location, keyword: error.keyword, message: `${error.message ?? "is not valid"}${allowed}` };
  });
}

/** Matches a path against `/v2/crawl/{id}` and returns the decoded template variables. */
function pathMatcher(template: string): (path: string) => Record<string, string> {
  const names: string[] = [];
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => {
      if (!/^\{[^}]+\}$/.test(part)) return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      names.push(part.slice(1, -1));
      return "([^/]*)";
    })
    .join("");
  const pattern = new RegExp(`^${source}$`);
  return (path) => {
    const values: Record<string, string> = {};
    const match = pattern.exec(path);
    names.forEach((name, i) => {
      const raw = match?.[i + 1];
      if (raw === undefined) return;
      try {
        values[name] = decodeURIComponent(raw);
      } catch {
        // A broken escape is still a value, and the schema decides whether it is acceptable.
        values[name] = raw;
      }
    });
    return values;
  };
}

/** Parameters of the path item and of the operation; the operation's override same-named ones. */
function collectParameters(document: Json, owners: Array<{ node: unknown; pointer: string }>): Parameter[] {
  const parameters: Parameter[] = [];
  for (const owner of owners) {
    const declared = (owner.node as Json | undefined)?.parameters;
    if (!Array.isArray(declared)) continue;
    declared.forEach((raw, i) => {
      const { node, pointer } = deref(document, raw, `${owner.pointer}/parameters/${i}`);
      const parameter = node as Json;
      if (parameter.in !== "path" && parameter.in !== "query" && parameter.in !== "header") return;
      const found: Parameter = {
        name: String(parameter.name),
        in: parameter.in,
        required: parameter.required === true,
        schemaRef: `${BUNDLE_ID}#${pointer}/schema`,
      };
      const same = parameters.findIndex((p) => p.name === found.name && p.in === found.in);
      if (same >= 0) parameters[same] = found;
      else parameters.push(found);
    });
  }
  return parameters;
}

/**
 * Compiles the checks of one operation from the bundle's own schemas: the JSON body with `strict`,
 * path, query and header parameters (as one object per location) with `coercing`.
 */
export function compileRequestValidator(
  document: Json,
  ajv: { strict: Ajv2020; coercing: Ajv2020 },
  method: string,
  template: string,
): RequestValidator {
  const itemPointer = `/paths/${escapePointer(template)}`;
  const item = deref(document, (document.paths as Json | undefined)?.[template], itemPointer);
  const opPointer = `${item.pointer}/${method.toLowerCase()}`;
  const operation = ((item.node as Json | undefined)?.[method.toLowerCase()] ?? {}) as Json;
  const parameters = collectParameters(document, [item, { node: operation, pointer: opPointer }]);

  // Reported in this order: body, headers, query, path.
  const groups = (["header", "query", "path"] as const).flatMap((where) => {
    const selected = parameters.filter((p) => p.in === where);
    if (selected.length === 0) return [];
    const validate = ajv.coercing.compile({
      type: "object",
      properties: Object.fromEntries(selected.map((p) => [p.name, { $ref: p.schemaRef }])),
      required: selected.filter((p) => p.required).map((p) => p.name),
    });
    return [{ where, selected, validate }];
  });

  let body: { validate: ValidateFunction; required: boolean } | undefined;
  if (operation.requestBody !== undefined) {
    const requestBody = deref(document, operation.requestBody, `${opPointer}/requestBody`);
    const content = ((requestBody.node as Json).content ?? {}) as Json;
    const mediaType = Object.keys(content).find((m) => /json/i.test(m));
    if (mediaType && (content[mediaType] as Json).schema !== undefined) {
      body = {
        validate: ajv.strict.compile({ $ref: `${BUNDLE_ID}#${requestBody.pointer}/content/${escapePointer(mediaType)}/schema` }),
        required: (requestBody.node as Json).required === true,
      };
    }
  }

  const matchPath = pathMatcher(template);
  return (parts) => {
    const violations: Violation[] = [];
    if (body) {
      if (parts.body === undefined) {
        if (body.required) violations.push({ location: ["body"], keyword: "required", message: "is required" });
      } else if (!body.validate(parts.body)) {
        violations.push(...toViolations(body.validate.errors, "body"));
      }
    }
    for (const { where, selected, validate } of groups) {
      const values: Record<string, unknown> = {};
      const source = where === "path" ? matchPath(parts.path) : where === "query" ? parts.query : parts.headers;
      for (const parameter of selected) {
        const key = where === "header" ? parameter.name.toLowerCase() : parameter.name;
        if (Object.hasOwn(source, key)) values[parameter.name] = source[key];
      }
      if (!validate(values)) violations.push(...toViolations(validate.errors, where));
    }
    return violations;
  };
}
