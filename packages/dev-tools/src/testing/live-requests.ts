import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/** One request whose fate at the live service is known, as `spec/test/live-requests/<api>/*.json` holds it. */
export interface LiveRequest {
  operation: string;
  /** The concrete path, when the operation's has variables or the entry judges them. */
  path?: string;
  query?: Record<string, unknown>;
  headers?: Record<string, string>;
  body?: unknown;
  live: "accepted" | "refused";
  /** The live status of a refusal, and the code its body carries (when it carries one). */
  status?: number;
  code?: string;
  /** repo@commit, file and symbol (or a seed section) that decide the verdict. */
  source: string;
  why: string;
}

/** The folder the spec package exports its judged requests from (`./live-requests/*`), read from its manifest. */
function liveRequestsDir(): string {
  const manifest = createRequire(import.meta.url).resolve("@api-contracts/spec/package.json");
  const exported = (JSON.parse(readFileSync(manifest, "utf8")) as { exports: Record<string, string> }).exports["./live-requests/*"];
  if (!exported) throw new Error("@api-contracts/spec exports no ./live-requests/*");
  return path.join(path.dirname(manifest), exported.replace("/*", ""));
}

/** Every live request of an API, each with the file it came from; none for an API the spec has none of. */
export function liveRequests(api: string): Array<LiveRequest & { file: string }> {
  const dir = path.join(liveRequestsDir(), api);
  let files: string[];
  try {
    files = readdirSync(dir).filter((file) => file.endsWith(".json")).sort();
  } catch {
    return [];
  }
  return files.flatMap((file) => (JSON.parse(readFileSync(path.join(dir, file), "utf8")) as LiveRequest[]).map((entry) => ({ ...entry, file })));
}
