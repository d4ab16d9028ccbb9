import type { Fixtures } from "../fixtures.js";
import type { Service } from "../judge.js";
import { entitlementsIds } from "../checks/entitlements.js";
import { webdataIds } from "../checks/webdata.js";
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

const codeOf = (body: unknown): unknown => (typeof body === "object" && body !== null ? (body as Record<string, unknown>).code : undefined);

const entitlements: GenerationProfile = {
  hints(fixtures) {
    const ids = entitlementsIds({ fixtures });
    return {
      customer_id: [ids.customer_id],
      feature_id: [ids.metered_feature_id, ids.boolean_feature_id, ids.unlimited_feature_id, ids.denied_feature_id],
    };
  },
  stateRefusal(operation, request, answer, fixtures, source) {
    if (answer.status !== 400) return undefined;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const code = codeOf(answer.body);
    if ((operation === "checkAccess" || operation === "checkAccessLegacy") && (code === "invalid_inputs" || code === "invalid_request")) {
      // The fixtures promise only the metered feature to be consumable.
      const consumable = body.feature_id === entitlementsIds({ fixtures }).metered_feature_id;
      if (!consumable && (body.send_event === true || body.lock !== undefined)) {
        return "CheckBadRequest documents invalid_request for send_event or a lock on a boolean feature and invalid_inputs for a lock on another non-consumable feature";
      }
    }
    if (operation === "finalizeLock" && codeOf(answer.body) === "invalid_request") {
      const allowedCheck = source !== undefined && (source.answer.body as Record<string, unknown> | null)?.allowed === true;
      // A lock whose expires_at had already passed was never live, whatever the check answered.
      const expiresAt = ((source?.request.body as Record<string, unknown> | undefined)?.lock as Record<string, unknown> | undefined)?.expires_at;
      const expired = typeof expiresAt === "number" && expiresAt <= Date.now();
      if (!allowedCheck || expired) return "FinalizeBadRequest documents invalid_request when no live lock has the lock_id";
    }
    return undefined;
  },
};

const webdata: GenerationProfile = {
  hints(fixtures) {
    const ids = webdataIds({ fixtures });
    return { monitorId: [ids.monitor_id], url: [ids.crawl_url] };
  },
};

export const PROFILES: Record<Service, GenerationProfile> = { entitlements, webdata };
