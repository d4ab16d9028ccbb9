import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findChromium, planBrowserTests } from "./find-browser.js";

const root = mkdtempSync(path.join(tmpdir(), "find-browser-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Makes an executable (or, with `mode: 0o644`, a plain) file at `root/relative`. */
function binary(relative: string, mode = 0o755): string {
  const file = path.join(root, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, "#!/bin/sh\n");
  chmodSync(file, mode);
  return file;
}

const emptyHome = path.join(root, "empty-home");

describe("finding a browser for the docs browser tests", () => {
  it("CHROMIUM_PATH wins over everything else", () => {
    const named = binary("named/chrome");
    const onPath = binary("bin/chromium");
    expect(findChromium({ env: { CHROMIUM_PATH: named, PATH: path.dirname(onPath) }, home: emptyHome })).toBe(named);
  });

  it("a CHROMIUM_PATH that is not executable finds nothing, rather than another browser", () => {
    const plain = binary("plain/chrome", 0o644);
    const onPath = binary("bin2/chromium");
    const search = { env: { CHROMIUM_PATH: plain, PATH: path.dirname(onPath) }, home: emptyHome };
    expect(findChromium(search)).toBeUndefined();
    expect(planBrowserTests(search)).toEqual({ skip: expect.stringContaining(`CHROMIUM_PATH (${plain})`) });
  });

  it("then the first of chromium, chromium-browser, google-chrome on the PATH", () => {
    const chrome = binary("path-a/google-chrome");
    const chromiumBrowser = binary("path-b/chromium-browser");
    const env = { PATH: [path.dirname(chrome), path.join(root, "missing"), path.dirname(chromiumBrowser)].join(path.delimiter) };
    expect(findChromium({ env, home: emptyHome })).toBe(chromiumBrowser);
  });

  it("then the newest browser in Playwright's cache, a full browser before a headless shell", () => {
    const home = path.join(root, "home");
    binary("home/.cache/ms-playwright/chromium_headless_shell-1300/chrome-linux/headless_shell");
    binary("home/.cache/ms-playwright/chromium-999/chrome-linux/chrome");
    const newest = binary("home/.cache/ms-playwright/chromium-1200/chrome-linux/chrome");
    expect(findChromium({ env: { PATH: "" }, home })).toBe(newest);
  });

  it("PLAYWRIGHT_BROWSERS_PATH moves Playwright's cache", () => {
    const shell = binary("pw/chromium_headless_shell-1/chrome-headless-shell-linux64/chrome-headless-shell");
    expect(findChromium({ env: { PLAYWRIGHT_BROWSERS_PATH: path.join(root, "pw") }, home: emptyHome })).toBe(shell);
  });

  it("with no browser the tests are skipped with a line saying how to get one", () => {
    const plan = planBrowserTests({ env: { PATH: path.join(root, "missing") }, home: emptyHome });
    expect(plan).toEqual({ skip: expect.stringMatching(/^docs browser tests skipped: no Chromium found .*apt-get install chromium/) });
  });

  it("with no browser under CI=true the tests fail instead", () => {
    const plan = planBrowserTests({ env: { PATH: "", CI: "true" }, home: emptyHome });
    expect(plan).toEqual({ fail: expect.stringContaining("CI=true requires the browser tests to run") });
  });

  it("with a browser the tests run on it", () => {
    const found = binary("run/chromium");
    expect(planBrowserTests({ env: { PATH: path.dirname(found), CI: "true" }, home: emptyHome })).toEqual({ run: found });
  });
});
