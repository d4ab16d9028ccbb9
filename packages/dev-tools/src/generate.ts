// Generates the TypeScript description of one API from its bundle, for the client package it is run in:
//   client-types entitlements   (in packages/entitlements-client) writes src/generated/entitlements.ts
// Every client uses this one generator so that their types come out of the same settings.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import openapiTS, { astToString } from "openapi-typescript";

/** Where a client keeps the types of `api`, relative to its package folder. */
export const generatedFile = (api: string): string => `src/generated/${api}.ts`;

/**
 * The bundle of `api` (`@api-contracts/spec/<api>.json`), resolved the way Node resolves it from
 * `packageDir`: the package that asks must list `@api-contracts/spec` among its dependencies.
 */
export function bundlePath(api: string, packageDir = process.cwd()): string {
  const require = createRequire(path.join(packageDir, "package.json"));
  try {
    return require.resolve(`@api-contracts/spec/${api}.json`);
  } catch {
    throw new Error(`no bundle for API "${api}": @api-contracts/spec exports no ./${api}.json (is the spec built, and a dependency of ${packageDir}?)`);
  }
}

type Schema = Record<string, unknown>;
const isSchema = (value: unknown): value is Schema => typeof value === "object" && value !== null && !Array.isArray(value);

/** Follows a local `$ref` (`#/components/...`) to the object it names. */
export function deref(bundle: Schema, node: unknown): unknown {
  let current = node;
  for (let hops = 0; isSchema(current) && typeof current.$ref === "string" && hops < 32; hops++) {
    current = current.$ref
      .replace(/^#\//, "")
      .split("/")
      .map((token) => decodeURIComponent(token).replaceAll("~1", "/").replaceAll("~0", "~"))
      .reduce<unknown>((at, token) => (isSchema(at) ? at[token] : undefined), bundle);
  }
  return current;
}

/** A schema with its `allOf` parts folded in: properties and required members add up, the first `type` or `const` wins. */
function folded(bundle: Schema, node: unknown): Schema {
  const schema = deref(bundle, node);
  if (!isSchema(schema)) return {};
  const parts = Array.isArray(schema.allOf) ? schema.allOf.map((part) => folded(bundle, part)) : [];
  const properties: Schema = {};
  const required = new Set<string>();
  for (const source of [schema, ...parts]) {
    for (const [name, property] of Object.entries(isSchema(source.properties) ? source.properties : {})) properties[name] ??= property;
    for (const name of Array.isArray(source.required) ? source.required : []) required.add(String(name));
  }
  const first = (key: string) => [schema, ...parts].find((source) => source[key] !== undefined)?.[key];
  return { type: first("type"), const: first("const"), items: first("items"), properties, required: [...required] };
}

/**
 * What a value of `node` always carries, for the clients' check of a received payload: JSON
 * type, `const`, the required members (their own shapes) and the items' shape, to `depth` levels.
 * Combinators other than `allOf` are not followed: such a value is checked for presence only.
 */
function shapeOf(bundle: Schema, node: unknown, depth: number): Schema {
  const schema = folded(bundle, node);
  const shape: Schema = {};
  if (schema.type !== undefined) shape.type = schema.type;
  else if (schema.const !== undefined) shape.type = schema.const === null ? "null" : typeof schema.const;
  if (schema.const !== undefined) shape.const = schema.const;
  if (depth === 0) return shape;
  const members = Object.fromEntries(
    (schema.required as string[])
      .filter((name) => Object.hasOwn(schema.properties as Schema, name))
      .map((name) => [name, shapeOf(bundle, (schema.properties as Schema)[name], depth - 1)]),
  );
  if (Object.keys(members).length > 0) shape.members = members;
  if (schema.items !== undefined) {
    const items = shapeOf(bundle, schema.items, depth - 1);
    if (Object.keys(items).length > 0) shape.items = items;
  }
  return shape;
}

/**
 * The webhook part of a client's generated file: how calls are signed (the description's
 * `x-webhook-signature`, without its prose) and the shape of each event's payload by event name.
 */
export function webhookSource(bundle: unknown): string {
  const document = isSchema(bundle) ? bundle : {};
  const shapes: Schema = {};
  for (const [event, item] of Object.entries(isSchema(document.webhooks) ? document.webhooks : {})) {
    const post = deref(document, item);
    const body = isSchema(post) ? deref(document, (post.post as Schema | undefined)?.requestBody) : undefined;
    const media = isSchema(body) && isSchema(body.content) ? body.content["application/json"] : undefined;
    if (isSchema(media)) shapes[event] = shapeOf(document, media.schema, 4);
  }
  const { description: _description, ...signature } = isSchema(document["x-webhook-signature"]) ? document["x-webhook-signature"] : {};
  const entries = Object.entries(shapes).map(([event, shape]) => `    ${JSON.stringify(event)}: ${JSON.stringify(shape)},`);
  return [
    "/** How this API's webhook calls are signed: the description's `x-webhook-signature`; null when it has none. */",
    `export const webhookSignature = ${Object.keys(signature).length > 0 ? JSON.stringify(signature) : "null"} as const;`,
    "/** What each webhook's payload always carries (JSON types, `const`s, required members), by event: `verifyWebhook` checks a received body against it. */",
    `export const webhookShapes = {`,
    ...entries,
    "} as const;",
    "",
  ].join("\n");
}

/** The generated source for `bundle`, exactly as it is written to disk. */
export async function generateTypes(api: string, bundle: unknown, packageName: string): Promise<string> {
  const ast = await openapiTS(bundle as Parameters<typeof openapiTS>[0], {
    rootTypes: true,
    rootTypesNoSchemaPrefix: true,
    // A member with a default may be left out of a request; the server fills it in.
    defaultNonNullable: false,
    alphabetize: true,
    silent: true,
  });
  const header = [
    `// Generated by openapi-typescript from spec/dist/${api}.openapi.json (@api-contracts/spec/${api}.json), with the webhook`,
    `// signature and payload shapes at the end. Do not edit by hand: change the spec, then run`,
    `// \`npm run generate -w ${packageName}\` (or \`npm run build\`).`,
    "",
  ].join("\n");
  return header + astToString(ast) + webhookSource(bundle);
}

/** Generates the types of `api` for the package in `packageDir` from the bundle as it is on disk. */
export async function freshTypes(api: string, packageDir = process.cwd()): Promise<string> {
  const bundle: unknown = JSON.parse(readFileSync(bundlePath(api, packageDir), "utf8"));
  const { name } = JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8")) as { name: string };
  return generateTypes(api, bundle, name);
}

/** Writes the generated types of `api` into the package in `packageDir`; returns the file's path relative to it. */
export async function writeGeneratedTypes(api: string, packageDir = process.cwd()): Promise<string> {
  const text = await freshTypes(api, packageDir);
  const file = path.join(packageDir, generatedFile(api));
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return generatedFile(api);
}
