// A request as the console's form holds it, turned into what is sent, what the contract decides on,
// and the commands a reader copies. Copies never hold the key: they read it from the variable the
// API's facts name (`key.variable`), as the reference page's samples do.
import { curlCommand, fillPath, queryString } from "@api-contracts/contract-core/contract";

export interface RequestForm {
  method: string;
  /** The path template: `/v2/crawl/{id}`. */
  path: string;
  baseUrl: string;
  apiKey: string;
  /** Parameter values by location and name, as typed; empty ones are not sent. */
  params: { path: Record<string, string>; query: Record<string, string>; header: Record<string, string> };
  /** The JSON body as typed; undefined when the operation takes none. */
  bodyText: string | undefined;
  /** The mock's `Prefer` header, when the mock is the target and a choice is made. */
  prefer: string | undefined;
}

const filled = (values: Record<string, string>) => Object.fromEntries(Object.entries(values).filter(([, value]) => value !== ""));

/** The concrete path and query string: `/v2/crawl/abc?limit=5`. */
export function pathAndQuery(form: RequestForm): string {
  return `${fillPath(form.path, form.params.path)}${queryString(filled(form.params.query))}`;
}

/** The body sent: the text as typed, or none when it is blank. */
export const bodyOf = (form: RequestForm): string | undefined => (form.bodyText?.trim() ? form.bodyText.trim() : undefined);

/** Every header the request carries by lower-case name, the key included (for sending only: never shown or copied). */
export function requestHeaders(form: RequestForm): Record<string, string> {
  const headers: Record<string, string> = { accept: "application/json" };
  for (const [name, value] of Object.entries(filled(form.params.header))) headers[name.toLowerCase()] = value;
  if (form.apiKey !== "") headers.authorization = `Bearer ${form.apiKey}`;
  if (bodyOf(form) !== undefined) headers["content-type"] = "application/json";
  if (form.prefer) headers.prefer = form.prefer;
  return headers;
}

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, "");

/** The form as a curl command; the key is `$<keyVariable>`, expanded by the shell. */
export function asCurl(form: RequestForm, keyVariable: string): string {
  const { accept: _accept, ...headers } = requestHeaders(form);
  const body = bodyOf(form);
  return curlCommand(
    { method: form.method, url: withoutTrailingSlash(form.baseUrl) + pathAndQuery(form), headers, ...(body === undefined ? {} : { body }) },
    { keyVariable: form.apiKey === "" ? undefined : keyVariable, multiline: true },
  );
}

/** JSON text indented (a TypeScript literal of its value), or the text as it is when it is not JSON. */
export function indentedJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** The form as a call through the API's typed client; the key comes from the environment variable `keyVariable`. */
export function asTypeScript(form: RequestForm, client: { package: string; factory: string }, keyVariable: string): string {
  const options: string[] = [];
  const params = (["path", "query", "header"] as const)
    .map((where) => [where, filled(form.params[where])] as const)
    .filter(([, values]) => Object.keys(values).length > 0)
    .map(([where, values]) => `${where}: ${JSON.stringify(values)}`);
  if (params.length > 0) options.push(`params: { ${params.join(", ")} }`);
  const body = bodyOf(form);
  if (body !== undefined) options.push(`body: ${indentedJson(body).replaceAll("\n", "\n  ")}`);
  if (form.prefer) options.push(`headers: { Prefer: ${JSON.stringify(form.prefer)} }`);
  const call = options.length > 0 ? `${JSON.stringify(form.path)}, {\n  ${options.join(",\n  ")},\n}` : JSON.stringify(form.path);
  return [
    `import { ${client.factory} } from ${JSON.stringify(client.package)};`,
    "",
    `const client = ${client.factory}({ baseUrl: ${JSON.stringify(withoutTrailingSlash(form.baseUrl))}, apiKey: process.env.${keyVariable} });`,
    "",
    `const { data, error, response } = await client.${form.method}(${call});`,
    "console.log(response.status, error ?? data);",
  ].join("\n");
}
