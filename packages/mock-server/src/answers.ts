// Prism's answers from the documented examples, kept on disk per bundle, so that a mock started
// again answers without loading Prism (about half a second of module loading and dereferencing).
// The file is named by a hash of everything an answer depends on: the description, Prism's
// version and this package's own code. A changed description gets another file, never a stale
// answer; a file that cannot be read or is not of this format is ignored and written anew. A folder
// another user could write to (the shared temporary folder itself, say) is not used: answers
// planted there would be served as the description's.
import { createHash, randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { PrismOperation, PrismResponse } from "./prism.js";

/** Bumped when the file's shape changes. */
const FORMAT = 1;

/** Where answers are kept unless told otherwise: `API_MOCK_CACHE_DIR`, else a folder of this user's in the system's temporary folder. */
export function defaultCacheDir(): string {
  return process.env.API_MOCK_CACHE_DIR || path.join(tmpdir(), `api-contracts-mock-${process.getuid?.() ?? "user"}`);
}

/** Whether `dir` is (or now is, made for this user alone) a folder that only this user can write to. */
function isOwnFolder(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const folder = lstatSync(dir);
    const uid = process.getuid?.();
    return folder.isDirectory() && (uid === undefined || folder.uid === uid) && (folder.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** What `Prefer` is resolved against: each operation's documented statuses and example names, nothing else. */
export function outlineOf(operation: PrismOperation): PrismOperation {
  return {
    id: operation.id,
    ...(operation.iid !== undefined ? { iid: operation.iid } : {}),
    method: operation.method,
    path: operation.path,
    responses: operation.responses.map((response) => ({
      code: response.code,
      ...(response.contents ? { contents: response.contents.map((content) => ({ ...(content.examples ? { examples: content.examples.map((example) => ({ key: example.key })) } : {}) })) } : {}),
    })),
  };
}

interface StoredAnswers {
  format: typeof FORMAT;
  key: string;
  outlines: PrismOperation[];
  answers: Record<string, PrismResponse>;
}

const require = createRequire(import.meta.url);

/** The code that makes an answer: Prism's version and this package's own modules (every file beside this one). */
let codeHash: string | undefined;
function hashOfCode(): string {
  if (codeHash === undefined) {
    const hash = createHash("sha256");
    const prismHttp = path.join(path.dirname(require.resolve("@stoplight/prism-http")), "..", "package.json");
    hash.update(readFileSync(prismHttp));
    const here = path.dirname(fileURLToPath(import.meta.url));
    for (const own of readdirSync(here, { withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name).sort()) {
      hash.update(`\n${own}\n`).update(readFileSync(path.join(here, own)));
    }
    codeHash = hash.digest("hex");
  }
  return codeHash;
}

function isStored(value: unknown, key: string): value is StoredAnswers {
  if (typeof value !== "object" || value === null) return false;
  const stored = value as Partial<StoredAnswers>;
  return (
    stored.format === FORMAT &&
    stored.key === key &&
    Array.isArray(stored.outlines) &&
    stored.outlines.every((o) => typeof o === "object" && o !== null && typeof o.method === "string" && typeof o.path === "string" && Array.isArray(o.responses)) &&
    typeof stored.answers === "object" &&
    stored.answers !== null &&
    Object.values(stored.answers).every((a) => typeof a === "object" && a !== null && typeof (a as PrismResponse).statusCode === "number")
  );
}

/** The answers of one API's description kept on disk; `dir` undefined keeps them in memory only. */
export class AnswerCache {
  readonly file: string | undefined;
  private readonly key: string;
  /** The operations' outlines as the file holds them; undefined until Prism has read the description once. */
  outlines: PrismOperation[] | undefined;
  private readonly answers = new Map<string, PrismResponse>();
  private pending: NodeJS.Immediate | undefined;
  /** Whether the file lacks something kept here. */
  private dirty = false;

  constructor(service: string, document: object, dir: string | undefined) {
    this.key = createHash("sha256").update(hashOfCode()).update(`\n${service}\n`).update(JSON.stringify(document)).digest("hex");
    this.file = dir === undefined || !isOwnFolder(dir) ? undefined : path.join(dir, `${service.replace(/[^\w.-]/g, "_")}-${this.key.slice(0, 32)}.json`);
    if (this.file === undefined) return;
    let stored: unknown;
    try {
      stored = JSON.parse(readFileSync(this.file, "utf8"));
    } catch {
      return; // none yet, or unreadable: made anew
    }
    if (!isStored(stored, this.key)) return;
    this.outlines = stored.outlines;
    for (const [answerKey, answer] of Object.entries(stored.answers)) this.answers.set(answerKey, answer);
  }

  get(answerKey: string): PrismResponse | undefined {
    return this.answers.get(answerKey);
  }

  /** Keeps the outlines Prism made of the description; written with the next answer or at once. */
  setOutlines(outlines: PrismOperation[]): void {
    this.outlines = outlines.map(outlineOf);
    this.schedule();
  }

  set(answerKey: string, answer: PrismResponse): void {
    // As JSON, as it is sent: what the file gives back is what was answered.
    this.answers.set(answerKey, JSON.parse(JSON.stringify(answer)) as PrismResponse);
    this.schedule();
  }

  /** Writes what is not written yet, now. */
  flush(): void {
    if (this.pending) clearImmediate(this.pending);
    this.pending = undefined;
    this.write();
  }

  private schedule(): void {
    this.dirty = true;
    if (this.file === undefined || this.pending) return;
    this.pending = setImmediate(() => this.flush());
    this.pending.unref();
  }

  /** Written whole to a file of its own, then renamed over the old one: a reader never sees half a file. */
  private write(): void {
    if (this.file === undefined || this.outlines === undefined || !this.dirty) return;
    this.dirty = false;
    const stored: StoredAnswers = { format: FORMAT, key: this.key, outlines: this.outlines, answers: Object.fromEntries(this.answers) };
    const temporary = `${this.file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      writeFileSync(temporary, JSON.stringify(stored));
      renameSync(temporary, this.file);
    } catch {
      // A folder that cannot be written only costs the next start its speed.
      rmSync(temporary, { force: true });
    }
  }
}
