// What the clients' webhook tests share: the reason a verification fails with, and loading a
// package as a runtime with only web-standard globals would.
import { createContext, runInContext } from "node:vm";
import type { Consumer } from "./consumer.js";

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
 * TextEncoder, TextDecoder, Headers): no Buffer, process or require, as in an edge runtime.
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
  const sandbox = createContext({ crypto: globalThis.crypto, TextEncoder, TextDecoder, Headers, console });
  if (runInContext("typeof Buffer + typeof process + typeof require", sandbox) !== "undefinedundefinedundefined") throw new Error("the sandbox has Node globals");
  return runInContext(`${outputFiles[0]!.text}; bundled`, sandbox) as T;
}

/**
 * Uses `verifyWebhook` of an installed package twice: compiles and runs `program` (which prints
 * JSON) in the consumer project, and calls the browser bundle's `verifyWebhook(...webCall)` in a
 * context with only web-standard globals. Resolves to the compiler's diagnostics, what the program
 * printed (parsed) and the event the web bundle returned.
 */
export async function verifyWebhookWhereUsersAre(consumer: Consumer, packageName: string, program: string, webCall: unknown[]): Promise<{ diagnostics: string[]; printed?: unknown; web?: unknown }> {
  const diagnostics = consumer.compile(program);
  if (diagnostics.length > 0) return { diagnostics };
  const printed: unknown = JSON.parse(await consumer.run({}));
  const bundled = await loadForWebRuntime<{ verifyWebhook: (...args: unknown[]) => Promise<unknown> }>(consumer.dir, packageName, ["verifyWebhook"]);
  return { diagnostics, printed, web: await bundled.verifyWebhook(...webCall) };
}
