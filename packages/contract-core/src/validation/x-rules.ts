import type { Ajv2020, ErrorObject } from "ajv/dist/2020.js";
import type { DataValidationCxt } from "ajv/dist/types/index.js";
import { getEmptyResult, parseImpl, type FLAG, type IPublicSuffix } from "tldts-core";
import { escapePointer, isObject } from "../document/pointer.js";
import { parseUrl } from "../wire/urls.js";

/** A rule of the spec's `x-rules` extension: a constraint between members that JSON Schema cannot state. */
export type XRule =
  | {
      rule: "time-window";
      member: string;
      encoding: "epoch-milliseconds" | "date-time";
      maxAheadMs?: number;
      maxBehindMs?: number;
      description: string;
    }
  | { rule: "at-most-fraction"; member: string; of: string; fraction: number; ofDefault?: number; description: string }
  | { rule: "wait-total"; member: string; maxMs: number; selectorWaitMs: number; description: string }
  | { rule: "no-schemaless-object"; member: string; description: string }
  | UrlRule
  | { rule: "utf16-length"; member: string; minLength?: number; maxLength?: number; description: string }
  | { rule: "path-regex"; member: string; description: string };

/**
 * A URL as a service parses it: a string member (or each string of an array member) must be a URL
 * the WHATWG URL parser (the platform's own `URL`) accepts, after the steps the rule names.
 */
export interface UrlRule {
  rule: "url";
  member: string;
  /** White space at both ends is removed (JavaScript's `trim`), as zod's `url()` does: after `defaultScheme` is put in front, as the service's preprocessing runs before zod's. */
  trim?: boolean;
  /** A value without a scheme gets `<defaultScheme>://` in front: one where `://` does not come before the first `.` or `:`. */
  defaultScheme?: string;
  /** The value must start with one of these schemes and `://`, in any case. */
  schemes?: string[];
  /**
   * `reachable`: the host is an IP address, or a name with a public suffix (by the public suffix
   * list, the ICANN section, unknown last labels counting as suffixes) that is not one of
   * `fileExtensions`, and the value has a dot followed by two or more Latin or Cyrillic letters,
   * digits or hyphens (or an `xn--` label), an optional port, then `/`, `?`, `#` or its end.
   */
  host?: "reachable";
  /** Last labels that are file extensions, not top-level domains (with `host: reachable`). */
  fileExtensions?: string[];
  /** What comes before the value's first `.` holds exactly one `:` (the scheme's). */
  singleColonBeforeFirstDot?: boolean;
  description: string;
}

const X_RULE_KINDS = ["time-window", "at-most-fraction", "wait-total", "no-schemaless-object", "url", "utf16-length", "path-regex"] as const;

/** "Looks like it has a top-level domain": a dot, two or more letters (Latin or Cyrillic), digits or hyphens, an optional port, then the end of the host. */
const TOP_LEVEL_DOMAIN = /\.(?:[-a-zA-Z0-9\u0400-\u052F\u2DE0-\u2DFF\uA640-\uA69F]{2,}|xn--[-a-zA-Z0-9]+)(?::\d+)?(?:[/?#]|$)/i;

/** tldts's step that ends once the public suffix is known (`FLAG` is a const enum its JavaScript does not export). */
const PUBLIC_SUFFIX_STEP: FLAG.PUBLIC_SUFFIX = 2;

/**
 * tldts's suffix lookup with no list: the last label is the suffix, as the list's own default rule
 * (`*`) makes it for a label the list does not hold. The rule only asks whether the suffix is one
 * of `fileExtensions`, and those are single labels none of which ends a suffix of the list's ICANN
 * section (the rule refuses a label with a dot, and a test holds every bundle's labels to the whole
 * list), so a longer suffix the list would find is never one of them: the answer is the same, and
 * the list (41 kB gzipped) stays out of every bundle, the docs console's included.
 */
function lastLabelSuffix(hostname: string, _options: unknown, out: IPublicSuffix): void {
  out.isIcann = false;
  out.isPrivate = false;
  out.publicSuffix = hostname.slice(hostname.lastIndexOf(".") + 1);
}

/**
 * A URL as the web data service reads one given without a scheme: `<scheme>://` put in front unless
 * it starts with a run of characters without `.` or `:` and then `://`. This is the whole test the
 * live service makes, so `example.com:8080/x` gets the scheme and ` https://x` (a leading space)
 * keeps its own; the url rule (`x-rules` `defaultScheme`) and the reference server both read URLs
 * through it, before any trim.
 */
export function withDefaultScheme(url: string, scheme: string): string {
  return /^[^.:]+:\/\//.test(url) ? url : `${scheme}://${url}`;
}

export function acceptsUrl(rule: UrlRule, input: string): boolean {
  let value = input;
  if (rule.defaultScheme !== undefined) value = withDefaultScheme(value, rule.defaultScheme);
  if (rule.trim) value = value.trim();
  if (parseUrl(value) === undefined) return false;
  if (rule.schemes !== undefined) {
    const scheme = /^([^:]*):\/\//.exec(value)?.[1]?.toLowerCase();
    if (scheme === undefined || !rule.schemes.includes(scheme)) return false;
  }
  if (rule.host === "reachable") {
    const parsed = parseImpl(value, PUBLIC_SUFFIX_STEP, lastLabelSuffix, {}, getEmptyResult());
    if (parsed.isIp !== true) {
      if (parsed.hostname === null || parsed.hostname.startsWith(".") || parsed.publicSuffix === null) return false;
      if (rule.fileExtensions?.includes(parsed.publicSuffix)) return false;
      if (!TOP_LEVEL_DOMAIN.test(value)) return false;
    }
  }
  if (rule.singleColonBeforeFirstDot && value.split(".")[0]!.split(":").length !== 2) return false;
  return true;
}

/**
 * Whether a JSON Schema (any JSON value) holds an object schema that lists no `properties` or
 * `patternProperties` yet allows any member (`additionalProperties: true`). An object with a `$ref`
 * is not looked into. A loop over an explicit stack, not recursion: the value comes from a request
 * and may nest as deep as its body allows.
 */
export function hasSchemalessObject(schema: unknown): boolean {
  const pending: unknown[] = [schema];
  while (pending.length > 0) {
    const node = pending.pop();
    // An array (a list of subschemas) has neither `$ref` nor `type`: only its items are looked into.
    if (typeof node !== "object" || node === null || Object.hasOwn(node, "$ref")) continue;
    const object = node as Record<string, unknown>;
    if (object.type === "object" && !Object.hasOwn(object, "properties") && !Object.hasOwn(object, "patternProperties") && object.additionalProperties === true) return true;
    for (const value of Object.values(object)) pending.push(value);
  }
  return false;
}

/**
 * What a list of browser actions waits in all: a wait's `milliseconds`, or `selectorWaitMs` for a
 * wait on a (non-empty) selector, whose time is not known in advance; a wait on an empty selector
 * counts nothing, as the live service counts it.
 */
export function totalWaitMs(actions: readonly unknown[], selectorWaitMs: number): number {
  let total = 0;
  for (const action of actions) {
    if (!isObject(action) || action.type !== "wait") continue;
    if (isFiniteNumber(action.milliseconds) && action.milliseconds !== 0) total += action.milliseconds;
    else if (typeof action.selector === "string" && action.selector !== "") total += selectorWaitMs;
  }
  return total;
}

/** Escapes of Rust's `regex` syntax that are letters: the rest of the ASCII letters are unrecognized there (JavaScript reads them as the letter). */
const RUST_LETTER_ESCAPES = new Set("afnrtvdDsSwWbBAzxuUpP");
/** Escapes that are assertions, which Rust refuses inside a class. */
const RUST_ASSERTION_ESCAPES = new Set("bBAz<>");
const HEX = /^[0-9A-Fa-f]+$/;
/** Inline flags, `(?i)` or `(?i-s:`; Rust reads them, the JavaScript RegExp of Node 22 refuses every form. */
const INLINE_FLAGS = /\(\?[imsUuxR-]+[:)]/y;
const LOOK_AROUND = /\(\?<?[=!]/y;
const GROUP_NAME = /\(\?P?<([^>(]*)>/y;
const ASCII_CLASS = /\[:\^?[a-z]+:\]/y;
const COUNTED_REPETITION = /\{\d+(,\d*)?\}/y;
const WORD_BOUNDARY = /\{(start|end|start-half|end-half)\}/y;

/** Whether a sticky pattern matches `text` at `at`; where `text` is long, slicing at every position would cost its square. */
function matchesAt(sticky: RegExp, text: string, at: number): RegExpExecArray | null {
  sticky.lastIndex = at;
  return sticky.exec(text);
}

/**
 * Why Firecrawl refuses a crawl's `includePaths`/`excludePaths` pattern, or undefined when it takes
 * it: the pattern must compile in its crawler's engine (Rust's `regex` crate over bytes, Unicode
 * off) and then as a JavaScript `RegExp` without flags. This judges the constructs where the two
 * differ from each other or from Unicode-aware regular expressions (look-around, back-references,
 * `\p{…}`, non-ASCII inside a class, escapes Rust does not know, a `{` that is not a counted
 * repetition, inline flags, group names), and leaves the rest to the platform's `RegExp`. The
 * crawler's limits on a compiled pattern's size and nesting are not judged here.
 */
export function pathRegexProblem(pattern: string): string | undefined {
  const names = new Set<string>();
  let classDepth = 0;
  // Rust reads a `]` right after `[` or `[^` as a literal.
  let classStart = false;
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === "\\") {
      const problem = rustEscapeProblem(pattern, i, classDepth > 0);
      if (problem) return problem;
      i += escapeLength(pattern, i);
      classStart = false;
      continue;
    }
    const ascii = classDepth > 0 && c === "[" ? matchesAt(ASCII_CLASS, pattern, i) : null;
    if (ascii) {
      i += ascii[0].length;
      classStart = false;
      continue;
    }
    if (c === "[") {
      classDepth++;
      classStart = true;
      i += pattern[i + 1] === "^" ? 2 : 1;
      continue;
    }
    if (classDepth > 0) {
      if (c === "]" && !classStart) classDepth--;
      else if (c.charCodeAt(0) > 0x7f) return "Unicode not allowed here: a non-ASCII character inside a class";
      classStart = false;
      i++;
      continue;
    }
    if (c === "(") {
      if (matchesAt(LOOK_AROUND, pattern, i)) return "look-around, including look-ahead and look-behind, is not supported";
      if (matchesAt(INLINE_FLAGS, pattern, i)) return "inline flags are not supported by JavaScript's RegExp";
      const name = matchesAt(GROUP_NAME, pattern, i)?.[1];
      if (name !== undefined) {
        if (!/^[_A-Za-z][_0-9A-Za-z]*$/.test(name)) return "invalid capture group name";
        if (names.has(name)) return "duplicate capture group name";
        names.add(name);
      }
    }
    if (c === "{" && !matchesAt(COUNTED_REPETITION, pattern, i)) return "a '{' must start a counted repetition such as {2} or {1,3}";
    i++;
  }
  if (classDepth > 0) return "unclosed character class";
  try {
    // As Firecrawl's crawl controller compiles it: no flags.
    new RegExp(pattern);
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
}

/** Hexadecimal digits of `\xHH`, `\uHHHH` and `\UHHHHHHHH` written without braces. */
const HEX_DIGITS = { x: 2, u: 4, U: 8 };

/** The characters an escape at `at` spans (the backslash included). */
function escapeLength(pattern: string, at: number): number {
  const letter = pattern[at + 1];
  if ((letter === "x" || letter === "u" || letter === "U" || letter === "b") && pattern[at + 2] === "{") {
    const end = pattern.indexOf("}", at + 3);
    return end === -1 ? pattern.length - at : end - at + 1;
  }
  if (letter === "p" || letter === "P") return pattern[at + 2] === "{" ? Math.max(3, pattern.indexOf("}", at) - at + 1) : 3;
  if (letter === "x" || letter === "u" || letter === "U") return 2 + HEX_DIGITS[letter];
  return letter === undefined ? 1 : 1 + letter.length;
}

/** What Rust's `regex` (Unicode off) finds wrong with the escape at `at`, or undefined. */
function rustEscapeProblem(pattern: string, at: number, inClass: boolean): string | undefined {
  const letter = pattern[at + 1];
  if (letter === undefined) return "incomplete escape sequence";
  if (/[0-9]/.test(letter)) return "backreferences are not supported";
  if (letter === "p" || letter === "P") return "Unicode not allowed here: \\p{…} and \\P{…} classes";
  if (letter.charCodeAt(0) > 0x7f) return "unrecognized escape sequence";
  if (!/[A-Za-z]/.test(letter)) return undefined;
  if (!RUST_LETTER_ESCAPES.has(letter)) return "unrecognized escape sequence";
  if (inClass && RUST_ASSERTION_ESCAPES.has(letter)) return "invalid escape sequence found in character class";
  if (letter === "b" && pattern[at + 2] === "{") {
    return matchesAt(WORD_BOUNDARY, pattern, at + 2) ? undefined : "unrecognized word boundary assertion";
  }
  if (letter !== "x" && letter !== "u" && letter !== "U") return undefined;
  const braced = pattern[at + 2] === "{";
  const end = at + escapeLength(pattern, at);
  if (braced && pattern[end - 1] !== "}") return "unclosed hexadecimal literal";
  const digits = pattern.slice(at + (braced ? 3 : 2), braced ? end - 1 : end);
  if (!HEX.test(digits) || (!braced && digits.length !== HEX_DIGITS[letter])) return "invalid hexadecimal escape";
  const value = Number.parseInt(digits, 16);
  if (value > 0x10ffff) return "invalid hexadecimal escape";
  // Over bytes, `\xHH` is one byte anywhere; any other escape above ASCII is a character, which a class without Unicode cannot hold.
  const byte = letter === "x" && !braced;
  if (inClass && value > (byte ? 0xff : 0x7f)) return "Unicode not allowed here: a non-ASCII character inside a class";
  return undefined;
}

type Check = (object: Record<string, unknown>, now: number) => boolean;

const isFiniteNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

function optionalNumber(rule: Record<string, unknown>, key: string): number | undefined {
  const value = rule[key];
  if (value === undefined) return undefined;
  if (!isFiniteNumber(value)) throw new Error(`x-rules: ${String(rule.rule)} on ${String(rule.member)} needs a number for ${key}`);
  return value;
}

/** Compiles one rule into a check of the object that carries it; a rule passes when its member is absent. */
function compileRule(raw: unknown): Check {
  if (!isObject(raw) || typeof raw.member !== "string" || typeof raw.description !== "string") {
    throw new Error(`x-rules: every rule needs a member and a description (got ${JSON.stringify(raw)})`);
  }
  const member = raw.member;
  switch (raw.rule) {
    case "time-window": {
      if (raw.encoding !== "epoch-milliseconds" && raw.encoding !== "date-time") {
        throw new Error(`x-rules: time-window on ${member} needs encoding epoch-milliseconds or date-time`);
      }
      const maxAhead = optionalNumber(raw, "maxAheadMs");
      const maxBehind = optionalNumber(raw, "maxBehindMs");
      const epoch = raw.encoding === "epoch-milliseconds";
      return (object, now) => {
        const value = object[member];
        // A value of the wrong type is the schema's own error, not the rule's.
        const at = epoch ? (isFiniteNumber(value) ? value : NaN) : typeof value === "string" ? Date.parse(value) : NaN;
        if (Number.isNaN(at)) return true;
        if (maxAhead !== undefined && at - now > maxAhead) return false;
        if (maxBehind !== undefined && now - at > maxBehind) return false;
        return true;
      };
    }
    case "at-most-fraction": {
      if (typeof raw.of !== "string") throw new Error(`x-rules: at-most-fraction on ${member} needs 'of'`);
      const of = raw.of;
      const fraction = optionalNumber(raw, "fraction");
      if (fraction === undefined) throw new Error(`x-rules: at-most-fraction on ${member} needs 'fraction'`);
      const ofDefault = optionalNumber(raw, "ofDefault");
      return (object) => {
        const value = object[member];
        if (!isFiniteNumber(value)) return true;
        const whole = Object.hasOwn(object, of) ? object[of] : ofDefault;
        if (!isFiniteNumber(whole)) return true;
        return value <= fraction * whole;
      };
    }
    case "wait-total": {
      const maxMs = optionalNumber(raw, "maxMs");
      const selectorWaitMs = optionalNumber(raw, "selectorWaitMs");
      if (maxMs === undefined || selectorWaitMs === undefined) throw new Error(`x-rules: wait-total on ${member} needs maxMs and selectorWaitMs`);
      return (object) => {
        const actions = object[member];
        return !Array.isArray(actions) || totalWaitMs(actions, selectorWaitMs) <= maxMs;
      };
    }
    case "no-schemaless-object":
      return (object) => !hasSchemalessObject(object[member]);
    case "url": {
      const rule = raw as unknown as UrlRule;
      const strings = (key: string) => raw[key] === undefined || (Array.isArray(raw[key]) && (raw[key] as unknown[]).every((item) => typeof item === "string"));
      if (!strings("schemes") || !strings("fileExtensions")) throw new Error(`x-rules: url on ${member} needs lists of strings for schemes and fileExtensions`);
      if (rule.fileExtensions?.some((label) => label.includes("."))) throw new Error(`x-rules: url on ${member}: each of fileExtensions is one label, without a dot`);
      if (rule.defaultScheme !== undefined && typeof rule.defaultScheme !== "string") throw new Error(`x-rules: url on ${member} needs a string defaultScheme`);
      if (rule.host !== undefined && rule.host !== "reachable") throw new Error(`x-rules: url on ${member}: host can only be 'reachable'`);
      return (object) => {
        const value = object[member];
        // A value of another type is the schema's own error; an array member is judged item by item.
        if (typeof value === "string") return acceptsUrl(rule, value);
        return !Array.isArray(value) || value.every((item) => typeof item !== "string" || acceptsUrl(rule, item));
      };
    }
    case "utf16-length": {
      const min = optionalNumber(raw, "minLength");
      const max = optionalNumber(raw, "maxLength");
      if (min === undefined && max === undefined) throw new Error(`x-rules: utf16-length on ${member} needs minLength or maxLength`);
      return (object) => {
        const value = object[member];
        // JavaScript (and zod) count a string's length in UTF-16 code units: a character outside the BMP counts two.
        return typeof value !== "string" || ((min === undefined || value.length >= min) && (max === undefined || value.length <= max));
      };
    }
    case "path-regex":
      return (object) => {
        const value = object[member];
        // A value of another type is the schema's own error.
        return !Array.isArray(value) || value.every((item) => typeof item !== "string" || pathRegexProblem(item) === undefined);
      };
    default:
      // A misspelt kind must not silently switch a rule off.
      throw new Error(`x-rules: unknown rule kind '${String(raw.rule)}' on ${member}; known: ${X_RULE_KINDS.join(", ")}`);
  }
}

/** Registers the `x-rules` keyword; `now` is read at every validation. */
export function addXRules(ajv: Ajv2020, now: () => number): void {
  ajv.addKeyword({
    keyword: "x-rules",
    schemaType: "array",
    errors: true,
    compile(rules: unknown[]) {
      const compiled = rules.map((raw) => ({ rule: raw as XRule, check: compileRule(raw) }));
      const validate = (data: unknown, context?: DataValidationCxt): boolean => {
        validate.errors = undefined;
        if (!isObject(data)) return true;
        const at = now();
        const failed: ErrorObject[] = [];
        for (const { rule, check } of compiled) {
          if (!Object.hasOwn(data, rule.member) || check(data, at)) continue;
          failed.push({
            keyword: "x-rules",
            instancePath: `${context?.instancePath ?? ""}/${escapePointer(rule.member)}`,
            schemaPath: "#/x-rules",
            params: { rule: rule.rule, member: rule.member },
            message: rule.description,
          });
        }
        validate.errors = failed.length > 0 ? failed : undefined;
        return failed.length === 0;
      };
      validate.errors = undefined as ErrorObject[] | undefined;
      return validate;
    },
  });
}
