// What the clients' webhook tests share: the reason a verification fails with, and loading a
// package as a runtime with only web-standard globals would.
import { createContext, runInContext } from "node:vm";

/** The `reason` a promised verification fails with; undefined when it succeeds. Other errors are thrown. */
export async function failureReason(verification: Promise<unknown>): Promise<string | undefined> {
  try {
    await verification;
    return undefined;
  } catch (error) {
    if (error instanceof Error && error.name === "WebhookVerificationError") return (error as Error & { reason: string }).reason;
    throw error;
  }
}

/**
 * Bundles `exports` of the package `packageName` as installed under `dir` for browsers (esbuild,
 * platform browser) and evaluates the bundle where only web-standard globals exist (WebCrypto,
 * TextEncoder, TextDecoder, Headers, atob, btoa): no Buffer, process or require, as in an edge runtime.
 * Resolves to the bundle's exports.
 */
export async function loadForWebRuntime<T>(dir: string, packageName: string, exports: string[]): Promise<T> {
  const { build } = await import("esbuild");
  const { outputFiles } = await build({
    stdin: { contents: `export { ${exports.join(", ")} } from ${JSON.stringify(packageName)};`, resolveDir: dir },
    bundle: true,
    platform: "browser",
    format: "iife",
    globalName: "bundled",
    write: false,
    logLevel: "silent",
  });
  const sandbox = createContext({ crypto: globalThis.crypto, TextEncoder, TextDecoder, Headers, atob, btoa, console });
  if (runInContext("typeof Buffer + typeof process + typeof require", sandbox) !== "undefinedundefinedundefined") throw new Error("the sandbox has Node globals");
  return runInContext(`${outputFiles[0]!.text}; bundled`, sandbox) as T;
}
