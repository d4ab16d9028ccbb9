// Pages the docs server makes for APIs of the registry that the built folder has no page for (an API
// folder named by CONTRACT_API_DIRS when the docs were built without it): each one's reference page,
// made from a built page (no Redoc build: an installed docs package has none), its description, and
// a landing page that lists every API. Each is made on first request and kept.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { listApis, loadBundle } from "@api-contracts/contract-core";
import { renderLanding } from "./landing.mjs";
import { CONSOLE_SCRIPT, descriptionFiles, pageFromBuiltPage } from "./page.mjs";

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The description a built page was made from: `<api>.openapi.json` beside it; undefined when there is none.
 * @param {string} root
 * @param {{ name: string }} api
 */
function builtDescription(root, api) {
  const file = path.join(root, `${api.name}.openapi.json`);
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : undefined;
}

/**
 * The files to serve instead of (or beside) those of a built folder, by their name inside it; null
 * when the folder has a page for every registered API, or holds no built docs to make pages from.
 * @param {string} root a folder `buildDocs` wrote
 * @returns {Map<string, () => Buffer> | null}
 */
export function registryPages(root) {
  const apis = listApis();
  const built = apis.filter((api) => existsSync(path.join(root, `${api.name}.html`)));
  const missing = apis.filter((api) => !built.includes(api));
  if (missing.length === 0 || built.length === 0 || !existsSync(path.join(root, CONSOLE_SCRIPT))) return null;
  const builtPage = path.join(root, `${built[0]?.name}.html`);
  /** @type {Map<string, () => Buffer>} */
  const files = new Map();
  /** @param {() => Buffer} make */
  const once = (make) => {
    /** @type {Buffer | undefined} */
    let made;
    return () => (made ??= make());
  };
  /** @type {Map<string, string[]>} */
  const downloads = new Map(built.map((api) => [api.name, ["yaml", "json"].map((extension) => `${api.name}.openapi.${extension}`).filter((file) => existsSync(path.join(root, file)))]));
  for (const api of missing) {
    files.set(`${api.name}.html`, once(() => Buffer.from(pageFromBuiltPage(readFileSync(builtPage, "utf8"), api, loadBundle(api), path.join(packageDir, "samples")))));
    const descriptions = descriptionFiles(api);
    for (const { name, read } of descriptions) files.set(name, once(read));
    downloads.set(api.name, descriptions.map(({ name }) => name));
  }
  files.set(
    "index.html",
    once(() =>
      Buffer.from(
        renderLanding({
          // A built API is shown as its page was built: from the description beside it.
          apis: apis.map((api) => ({ api, document: builtDescription(root, api) ?? loadBundle(api), downloads: downloads.get(api.name) ?? [] })),
          quickstartDir: path.join(packageDir, "quickstart"),
          strict: false,
        }),
      ),
    ),
  );
  return files;
}
