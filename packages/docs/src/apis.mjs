// What the docs need to know about each API beyond its bundle: which client package speaks it,
// which environment variable the samples read the key from, and where its local mock listens.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/**
 * @typedef {object} DocsApi
 * @property {string} name          file stem of the reference page and the bundles
 * @property {string} bundleJson    absolute path of the bundled description (JSON)
 * @property {string} bundleYaml    absolute path of the bundled description (YAML)
 * @property {string} clientPackage npm name of the typed client
 * @property {string} clientFactory exported factory of the typed client
 * @property {string} keyEnv        environment variable the samples read the API key from
 * @property {number} mockPort      port the local mock server listens on
 */

/** @type {DocsApi[]} */
export const docsApis = [
  {
    name: "entitlements",
    bundleJson: require.resolve("@api-contracts/spec/entitlements.json"),
    bundleYaml: require.resolve("@api-contracts/spec/entitlements.yaml"),
    clientPackage: "@api-contracts/entitlements-client",
    clientFactory: "createEntitlementsClient",
    keyEnv: "ENTITLEMENTS_API_KEY",
    mockPort: 4011,
  },
  {
    name: "webdata",
    bundleJson: require.resolve("@api-contracts/spec/webdata.json"),
    bundleYaml: require.resolve("@api-contracts/spec/webdata.yaml"),
    clientPackage: "@api-contracts/webdata-client",
    clientFactory: "createWebdataClient",
    keyEnv: "WEBDATA_API_KEY",
    mockPort: 4010,
  },
];
