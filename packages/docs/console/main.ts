// The console of a reference page: a panel beside Redoc's content, opened from the "Try it" link
// the build adds to every operation and webhook (or from a `?try=<operationId>` address). It lives
// outside Redoc's own tree, so Redoc re-rendering never loses what the reader typed.
import type { ApiEntry, JsonObject } from "@api-contracts/contract-core/contract";
import styles from "./console.css";
import { h, labelled } from "./dom.js";
import { createJudge } from "./judge.js";
import { operationConsole, type Setup } from "./operation.js";
import { webhookConsole } from "./webhook.js";

/** What the build puts in the page: the API's facts (its registry entry) and its description. */
interface PageData {
  api: ApiEntry;
  document: JsonObject;
}

/** The console's address: `?try=<operationId>` (Redoc routes by the hash, so the console keeps out of it). */
const TRY_PARAMETER = "try";

/**
 * Where requests go: the servers the docs server's config names for this API (only those: a target
 * offered is one that runs), else the mock at the port of the API's facts.
 */
async function loadSetupParts(api: ApiEntry): Promise<Pick<Setup, "targets" | "relay" | "initialTarget">> {
  const local = `http://127.0.0.1:${api.mockPort}`;
  const fallback = { targets: { mock: local }, relay: undefined, initialTarget: "mock" as const };
  if (location.protocol !== "http:" && location.protocol !== "https:") return fallback;
  try {
    const response = await fetch("/_console/config.json", { cache: "no-store", credentials: "omit" });
    if (!response.ok) return fallback;
    const config = (await response.json()) as { relay?: unknown; targets?: Record<string, { mock?: unknown; reference?: unknown }> };
    const mine = config.targets?.[api.name] ?? {};
    const mock = typeof mine.mock === "string" ? mine.mock : undefined;
    const reference = typeof mine.reference === "string" ? mine.reference : undefined;
    return {
      targets: mock === undefined && reference === undefined ? fallback.targets : { mock, reference },
      relay: typeof config.relay === "string" && config.relay.startsWith("/") ? config.relay : undefined,
      // `npm start --stateful` runs the reference implementation where the mock would be.
      initialTarget: mock === undefined && reference !== undefined ? "reference" : "mock",
    };
  } catch {
    return fallback;
  }
}

function start(): void {
  const dataElement = document.getElementById("api-console-data");
  if (!dataElement?.textContent) return;
  const data = JSON.parse(dataElement.textContent) as PageData;
  const judge = createJudge(data.api, data.document);
  // The docs server names the ports the stack really uses, in its config and in the pages it serves.
  const setupReady = loadSetupParts(data.api).then((parts): Setup => ({ api: data.api, judge, ...parts }));

  document.head.append(h("style", {}, styles));
  const consoles = new Map<string, HTMLElement>();
  const content = h("div", { class: "content" });
  const closeButton = h("button", { type: "button", class: "close" }, "Close console");
  // Every console of the page is one choice away, so the reader can move between operations without leaving the panel.
  const chooser = h(
    "select",
    { onchange: () => void open(chooser.value) },
    ...judge.operations.map((op) => h("option", { value: op.operationId }, `${op.method} ${op.path} (${op.operationId})`)),
    ...judge.webhooks.map((webhook) => h("option", { value: webhook.operationId }, `webhook ${webhook.event} (${webhook.operationId})`)),
  );
  const panel = h("aside", { class: "api-console", "aria-label": "Console", hidden: true }, closeButton, labelled("Operation", chooser), content);
  document.body.append(panel);
  let openedFrom: HTMLElement | null = null;

  // The address names the open console (`?try=<operationId>`), so that it can be shared and reloaded.
  const address = (operationId: string | undefined) => {
    const url = new URL(location.href);
    if (operationId === undefined) url.searchParams.delete(TRY_PARAMETER);
    else url.searchParams.set(TRY_PARAMETER, operationId);
    try {
      history.replaceState(history.state, "", url);
    } catch {
      // A page opened from disk may not change its address; the console works the same.
    }
  };
  const close = () => {
    panel.hidden = true;
    address(undefined);
    openedFrom?.focus();
  };
  closeButton.addEventListener("click", close);
  panel.addEventListener("keydown", (event) => {
    if (event.key === "Escape") close();
  });

  const open = async (operationId: string) => {
    const setup = await setupReady;
    let view = consoles.get(operationId);
    if (!view) {
      const op = judge.operations.find((candidate) => candidate.operationId === operationId);
      const webhook = op ? undefined : judge.webhooks.find((candidate) => candidate.operationId === operationId);
      if (!op && !webhook) return;
      view = op ? operationConsole(op, setup) : webhookConsole(webhook!, judge);
      consoles.set(operationId, view);
    }
    content.replaceChildren(view);
    chooser.value = operationId;
    address(operationId);
    panel.hidden = false;
    view.querySelector<HTMLElement>("h2")?.focus();
  };

  // Capture: Redoc must not treat the link as one of its own section links.
  document.addEventListener(
    "click",
    (event) => {
      const link = event.target instanceof Element ? event.target.closest<HTMLAnchorElement>("a[data-api-console]") : null;
      if (!link) return;
      event.preventDefault();
      event.stopPropagation();
      openedFrom = link;
      void open(decodeURIComponent(link.dataset.apiConsole!));
    },
    true,
  );
  const asked = new URLSearchParams(location.search).get(TRY_PARAMETER);
  if (asked) void open(asked);
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
