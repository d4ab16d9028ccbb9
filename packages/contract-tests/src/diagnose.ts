// When most answers of a run are not the API's, the likely cause is the target, not the
// implementation: a base URL with the version in it, the other API's port, a web page. One line
// says which, so that "0 passed, 52 failed" comes with what to try.
import { getApi, isJsonMediaType, listApis } from "@api-contracts/contract-core";
import { contractOf } from "./judge.js";
import type { ObservedExchange } from "./http.js";

/** Fewer answers than this say too little to guess from. */
const FEWEST_ANSWERS = 3;
/** Error bodies checked against another API's shapes; enough to tell, bounded whatever the run. */
const SAMPLED_BODIES = 20;

/** Checks a body against the documented error shapes (4xx and 5xx JSON schemas) of one API. */
function errorShapeOf(api: string): (body: unknown) => boolean {
  const { validators } = contractOf(api);
  const pointers = validators
    .walkedOperations()
    .flatMap((op) => op.responses.filter((response) => /^[45]/.test(response.status) || response.status === "default"))
    .flatMap((response) => response.media.filter((media) => isJsonMediaType(media.mediaType.toLowerCase())).map((media) => media.schema));
  const schemas = [...new Set(pointers)].flatMap((pointer) => (pointer ? [validators.schema(pointer)] : []));
  return (body) => schemas.some((validate) => validate(body));
}

function jsonBody(observed: ObservedExchange): { value: unknown } | undefined {
  const { contentType, bodyText } = observed.exchange;
  if (!contentType || !isJsonMediaType(contentType.split(";")[0]!.trim().toLowerCase())) return undefined;
  try {
    return { value: JSON.parse(bodyText) };
  } catch {
    return undefined;
  }
}

/**
 * What the run's answers looked like, in counts and a few sampled bodies: all a diagnosis needs,
 * in memory bounded whatever the number of exchanges.
 */
export class AnswerTally {
  answers = 0;
  /** Answers to requests that carried the run's API key. */
  keyedAnswers = 0;
  /** ... of which were 401: the server does not take the key. */
  keyRefused = 0;
  /** Answers that were 404 or not as documented. */
  off = 0;
  notFound = 0;
  /** Off answers whose body is not JSON. */
  offNotJson = 0;
  /** JSON bodies of off answers, the first few. */
  readonly offBodies: unknown[] = [];
  first: { method: string; path: string; status: number; contentType: string | null } | undefined;

  add(observed: ObservedExchange): void {
    const { method, path, status, contentType } = observed.exchange;
    this.answers++;
    this.first ??= { method, path, status, contentType };
    if (observed.keyed) {
      this.keyedAnswers++;
      if (status === 401) this.keyRefused++;
    }
    if (observed.verdict.ok && status !== 404) return;
    this.off++;
    if (status === 404) this.notFound++;
    const body = jsonBody(observed);
    if (!body) this.offNotJson++;
    else if (this.offBodies.length < SAMPLED_BODIES) this.offBodies.push(body.value);
  }
}

interface Diagnosis {
  service: string;
  /** The base URL the requests went to (credentials removed). */
  baseUrl: URL;
  /** The exchanges made through the client during the run. */
  tally: AnswerTally;
  /** The title of the web page the root of the base URL serves ("" for an untitled one; one request), asked only when the answers are not JSON. */
  pageTitle: (url: string) => Promise<string | undefined>;
}

/**
 * One line suggesting why most answers are not the API's, or undefined when most are. Looked at in
 * order: a key the server refuses, a version at the end of the base URL, the other API's error
 * shape, a web page, 404s.
 */
export async function diagnose({ service, baseUrl, tally, pageTitle }: Diagnosis): Promise<string | undefined> {
  const api = getApi(service);
  // A wrong key makes every check fail on a documented 401, which no shape test would single out.
  if (tally.keyedAnswers >= FEWEST_ANSWERS && tally.keyRefused * 2 > tally.keyedAnswers) {
    return `hint: ${tally.keyRefused} of ${tally.keyedAnswers} answers to requests carrying the API key are 401: the server does not accept this key; check --api-key (or CONTRACT_API_KEY, or api_keys.${service} in the fixtures)`;
  }
  if (tally.answers < FEWEST_ANSWERS || tally.off * 2 <= tally.answers || !tally.first) return undefined;
  const share = `${tally.off} of ${tally.answers} answers`;
  const example = tally.first;
  const base = baseUrl.href.replace(/\/+$/, "");

  const version = /\/(v\d+)\/*$/.exec(baseUrl.pathname);
  if (version) {
    const trimmed = base.slice(0, base.length - version[0].replace(/\/+$/, "").length);
    return `hint: --base-url ends in /${version[1]}, but the ${api.title}'s paths already carry their version (${example.method} ${example.path}), so requests went to /${version[1]}${example.path}; try --base-url ${trimmed}`;
  }

  const bodies = tally.offBodies;
  if (bodies.length > 0) {
    const mine = errorShapeOf(service);
    for (const other of listApis().filter((candidate) => candidate.name !== service)) {
      const theirs = errorShapeOf(other.name);
      if (bodies.filter((body) => theirs(body) && !mine(body)).length * 2 > bodies.length) {
        return `hint: ${share} are in the ${other.title}'s error shape: this port seems to serve the ${other.title}, not the ${api.title}; point --base-url at the ${api.title} (its mock listens on ${api.mockPort} by default), or run with --service ${other.name}`;
      }
    }
  }

  if (tally.offNotJson * 2 > tally.off) {
    const title = await pageTitle(base);
    if (title !== undefined) {
      const named = title ? ` ("${title.slice(0, 80)}")` : "";
      return `hint: ${share} are not JSON, and ${base} serves a web page${named}: this looks like a web site such as the docs server, not the ${api.title} (its mock listens on ${api.mockPort} by default)`;
    }
    return `hint: ${share} are not JSON (${example.status} ${example.contentType ?? "without a content type"}): --base-url does not seem to serve the ${api.title}`;
  }

  if (tally.notFound * 2 > tally.off) {
    return `hint: ${tally.notFound} of ${tally.answers} answers are 404: no ${api.title} operation seems to be served at these paths (${example.method} ${example.path}); if the API sits under a path prefix, put the prefix in --base-url (${base}/<prefix>)`;
  }
  return `hint: ${share} are not in the ${api.title}'s documented shapes: check that --base-url serves the ${api.title} and that --service ${service} is the right API`;
}
