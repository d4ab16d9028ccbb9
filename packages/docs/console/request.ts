// A request as the console's form holds it, turned into what is sent, what the contract judges,
// and the commands a reader copies. Copies never hold the key: they read it from $API_KEY.
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

const filled = (values: Record<string, string>) => Object.entries(values).filter(([, value]) => value !== "");

/** The concrete path and query string: `/v2/crawl/abc?limit=5`. */
export function pathAndQuery(form: RequestForm): string {
  const path = form.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(form.params.path[name] ?? ""));
  const query = new URLSearchParams(filled(form.params.query)).toString();
  return query ? `${path}?${query}` : path;
}

/** Every header the request carries, the key included (for sending only: never shown or copied). */
export function requestHeaders(form: RequestForm): Record<string, string> {
  const headers: Record<string, string> = { accept: "application/json" };
  for (const [name, value] of filled(form.params.header)) headers[name.toLowerCase()] = value;
  if (form.apiKey !== "") headers.authorization = `Bearer ${form.apiKey}`;
  if (form.bodyText !== undefined && form.bodyText.trim() !== "") headers["content-type"] = "application/json";
  if (form.prefer) headers.prefer = form.prefer;
  return headers;
}

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

/** The form as a curl command; the key is `$API_KEY`, expanded by the shell. */
export function asCurl(form: RequestForm): string {
  const lines = [`curl -X ${form.method} ${shellQuote(withoutTrailingSlash(form.baseUrl) + pathAndQuery(form))}`];
  if (form.apiKey !== "") lines.push(`-H "Authorization: Bearer $API_KEY"`);
  for (const [name, value] of Object.entries(requestHeaders(form))) {
    if (name === "authorization" || name === "accept") continue;
    lines.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  }
  if (form.bodyText !== undefined && form.bodyText.trim() !== "") lines.push(`--data-raw ${shellQuote(form.bodyText.trim())}`);
  return lines.join(" \\\n  ");
}

const indent = (text: string, by: string) => text.replaceAll("\n", `\n${by}`);

/** TypeScript literal of a JSON value, or the text as typed when it is not JSON. */
function literal(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** The form as a call through the API's typed client; the key comes from the API_KEY environment variable. */
export function asTypeScript(form: RequestForm, client: { package: string; factory: string }): string {
  const options: string[] = [];
  const params = (["path", "query", "header"] as const)
    .map((where) => [where, filled(form.params[where])] as const)
    .filter(([, values]) => values.length > 0)
    .map(([where, values]) => `${where}: ${JSON.stringify(Object.fromEntries(values))}`);
  if (params.length > 0) options.push(`params: { ${params.join(", ")} }`);
  if (form.bodyText !== undefined && form.bodyText.trim() !== "") options.push(`body: ${indent(literal(form.bodyText), "  ")}`);
  if (form.prefer) options.push(`headers: { Prefer: ${JSON.stringify(form.prefer)} }`);
  const call = options.length > 0 ? `${JSON.stringify(form.path)}, {\n  ${options.join(",\n  ")},\n}` : JSON.stringify(form.path);
  return [
    `import { ${client.factory} } from ${JSON.stringify(client.package)};`,
    "",
    `const client = ${client.factory}({ baseUrl: ${JSON.stringify(withoutTrailingSlash(form.baseUrl))}, apiKey: process.env.API_KEY });`,
    "",
    `const { data, error, response } = await client.${form.method}(${call});`,
    "console.log(response.status, error ?? data);",
  ].join("\n");
}
