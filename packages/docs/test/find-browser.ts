import { accessSync, constants, readdirSync } from "node:fs";
import path from "node:path";

/** Where to look for a browser: the environment, the PATH and the home folder, injectable for tests. */
export interface BrowserSearch {
  env: Record<string, string | undefined>;
  home: string;
}

const HOW_TO_GET_ONE = "install one (Debian: apt-get install chromium) or point CHROMIUM_PATH at a Chromium or Chrome binary";

/** Names of Chromium-family binaries that distributions and vendors put on the PATH. */
const PATH_NAMES = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];

/** Binaries inside one of Playwright's downloaded browser folders, full browser before headless shell. */
const PLAYWRIGHT_BINARIES: Record<string, string[]> = {
  "chromium-": ["chrome-linux/chrome", "chrome-linux64/chrome"],
  "chromium_headless_shell-": ["chrome-linux/headless_shell", "chrome-headless-shell-linux64/chrome-headless-shell"],
};

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(env: BrowserSearch["env"]): string | undefined {
  const dirs = (env.PATH ?? "").split(path.delimiter).filter(Boolean);
  for (const name of PATH_NAMES) {
    for (const dir of dirs) {
      const file = path.join(dir, name);
      if (isExecutable(file)) return file;
    }
  }
  return undefined;
}

function inPlaywrightCache({ env, home }: BrowserSearch): string | undefined {
  const cache = env.PLAYWRIGHT_BROWSERS_PATH || path.join(home, ".cache", "ms-playwright");
  let folders: string[];
  try {
    // Newest revision first: folder names end in the revision number.
    folders = readdirSync(cache).sort((a, b) => b.localeCompare(a, "en", { numeric: true }));
  } catch {
    return undefined;
  }
  for (const [prefix, binaries] of Object.entries(PLAYWRIGHT_BINARIES)) {
    for (const folder of folders.filter((name) => name.startsWith(prefix))) {
      for (const binary of binaries) {
        const file = path.join(cache, folder, binary);
        if (isExecutable(file)) return file;
      }
    }
  }
  return undefined;
}

/**
 * Finds a Chromium the way users have one: `CHROMIUM_PATH`, then a Chromium or Chrome on the PATH,
 * then Playwright's own browser cache.
 */
export function findChromium(search: BrowserSearch): string | undefined {
  const named = search.env.CHROMIUM_PATH;
  if (named) return isExecutable(named) ? named : undefined;
  return onPath(search.env) ?? inPlaywrightCache(search);
}

/** What the browser tests do on this machine: run, skip with a line saying how to get a browser, or fail (CI). */
export type BrowserPlan = { run: string } | { skip: string } | { fail: string };

export function planBrowserTests(search: BrowserSearch): BrowserPlan {
  const found = findChromium(search);
  if (found) return { run: found };
  const where = search.env.CHROMIUM_PATH
    ? `CHROMIUM_PATH (${search.env.CHROMIUM_PATH}) is not an executable file`
    : "no Chromium found (CHROMIUM_PATH, chromium, chromium-browser, google-chrome on the PATH, Playwright's browser cache)";
  // CI must not pass on a missing browser: there, a skipped browser test would hide a broken docs page.
  if (search.env.CI === "true") return { fail: `${where}; CI=true requires the browser tests to run: ${HOW_TO_GET_ONE}` };
  return { skip: `docs browser tests skipped: ${where}; to run them, ${HOW_TO_GET_ONE}` };
}
