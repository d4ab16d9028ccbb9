import { fileURLToPath } from "node:url";

/**
 * The folder of a third, small API (Notes: list, create and read notes, its own error shape and
 * media-type policy) described only by `openapi.json` and `api.json`. Tests name it in
 * `CONTRACT_API_DIRS` to prove that every tool serves, judges, tests and shows an API from its folder
 * alone, with no code that knows it.
 */
export const THIRD_API_DIR = fileURLToPath(new URL("../../fixtures/apis/notes", import.meta.url));

/** The third API's name in the registry: its folder's. */
export const THIRD_API = "notes";
