import type { Fixtures } from "../fixtures.js";
import type { GeneratedRequest } from "./arbitraries.js";

/** What the target answered to a generated request, for judging it. */
export interface Answer {
  status: number;
  body: unknown;
}

/** Where a request came from when it follows an OpenAPI link: the request and answer that fed it. */
export interface LinkSource {
  operation: string;
  request: GeneratedRequest;
  answer: Answer;
}

/** What the kit knows of one API beyond its description: real ids, and the refusals its prose documents. */
export interface GenerationProfile {
  /** Real values for members and parameters, by name, taken from the fixtures. */
  hints(fixtures: Fixtures | undefined): Record<string, string[]>;
  /**
   * Why a 400 to a schema-valid request is still the documented answer (a refusal that depends on
   * the target's state, which the description states in prose); undefined when it is not.
   */
  stateRefusal?(operation: string, request: GeneratedRequest, answer: Answer, fixtures: Fixtures | undefined, source?: LinkSource): string | undefined;
}
