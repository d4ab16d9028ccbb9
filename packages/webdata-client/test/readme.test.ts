import { expect, inject, it } from "vitest";
import { WEBDATA_BASE_URL } from "../src/index.js";
import { loadBundle, runReadmeExample, specExample } from "@api-contracts/dev-tools/testing";

it("the README example compiles and prints the id of the started crawl (here: the mock server's example)", async () => {
  const { diagnostics, stdout } = await runReadmeExample(WEBDATA_BASE_URL, inject("mockUrl"), { FIRECRAWL_API_KEY: "fc-test" });
  expect(diagnostics).toEqual([]);
  // The mock refuses a call without a well-formed bearer token, so a printed id also shows the key was sent.
  const example = specExample(loadBundle("webdata"), "POST", "/v2/crawl").body as { id: string };
  expect(stdout.trim()).toBe(`crawl started: ${example.id}`);
}, 120_000);
