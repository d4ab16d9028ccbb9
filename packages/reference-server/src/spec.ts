import { OpenApiValidators, loadBundle, errorPath as memberPath } from "@api-contracts/contract-core";
import type { ErrorObject } from "ajv/dist/2020.js";

export type ApiName = "entitlements" | "webdata";

/** The validators of one API's bundle; one instance per API serves every server of the process. */
export class SpecValidators extends OpenApiValidators {
  private static readonly shared = new Map<ApiName, SpecValidators>();

  static for(api: ApiName): SpecValidators {
    let instance = SpecValidators.shared.get(api);
    if (!instance) {
      instance = new SpecValidators(api);
      SpecValidators.shared.set(api, instance);
    }
    return instance;
  }

  constructor(readonly api: ApiName) {
    super(loadBundle(api));
  }
}

/** Field path of an ajv error in dotted form (`lock.lock_id`, `scrapeOptions.formats[0]`). */
export function errorField(error: ErrorObject): string {
  return memberPath(error)
    .map(String)
    .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), "");
}

/** The error path as an array (numbers for array indices), as zod-style `details` carry it. */
export function errorPath(error: ErrorObject): Array<string | number> {
  return errorField(error)
    .split(/\.|\[|\]/)
    .filter((p) => p !== "")
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

/** Members named by a schema made only of `required` (as in `oneOf: [{required: [a]}, {required: [b]}]`). */
function requiredOnly(schema: unknown): string[] | null {
  if (schema === null || typeof schema !== "object") return null;
  const keys = Object.keys(schema).filter((k) => k !== "title" && k !== "description");
  const required = (schema as { required?: unknown }).required;
  return keys.length === 1 && Array.isArray(required) ? required.map(String) : null;
}

/** Readable message of an ajv error that names the field. */
export function describeError(error: ErrorObject, where = "body"): string {
  const field = errorField(error);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return `${field} is required`;
    case "additionalProperties":
    case "unevaluatedProperties":
      return `${field} is not a recognised member of the ${where}`;
    case "enum":
      return `${field || where} must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "const":
      return `${field || where} must be ${JSON.stringify(params.allowedValue)}`;
    case "not": {
      const forbidden = (error.schema as { required?: unknown } | undefined)?.required;
      if (Array.isArray(forbidden)) return `${forbidden.join(", ")} must not be sent${field ? ` in ${field}` : ""} together with the other members given`;
      return `${field || where} ${error.message ?? "is invalid"}`;
    }
    case "oneOf":
    case "anyOf": {
      const branches = Array.isArray(error.schema) ? error.schema.map(requiredOnly) : [];
      if (branches.length > 0 && branches.every((b) => b !== null)) {
        const names = branches.flat().join(", ");
        return `${field ? `${field}: ` : ""}exactly one of ${names} is required`;
      }
      return `${field || where} ${error.message ?? "is invalid"}`;
    }
    default:
      return `${field || where} ${error.message ?? "is invalid"}`;
  }
}

/**
 * Picks the errors that explain a failed validation. ajv reports every branch of a failed
 * `oneOf`/`anyOf` plus the combinator itself: when the branches only say which members are
 * required, the combinator's own error says it best; otherwise the leaf errors name the field.
 */
export function usefulErrors(errors: ErrorObject[] | null | undefined): ErrorObject[] {
  let all = (errors ?? []).filter((e) => e.keyword !== "if");
  for (const combinator of all.filter((e) => e.keyword === "oneOf" || e.keyword === "anyOf")) {
    const branches = Array.isArray(combinator.schema) ? combinator.schema.map(requiredOnly) : [];
    const requiredBranches = branches.length > 0 && branches.every((b) => b !== null);
    all = all.filter((e) => (requiredBranches ? !e.schemaPath.startsWith(`${combinator.schemaPath}/`) : e !== combinator));
  }
  return all.length > 0 ? all : (errors ?? []);
}
