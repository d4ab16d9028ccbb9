// One webhook's console: paste a call as a receiver got it and see the contract's verdict, or have
// a signed example call built from a secret.
import type { WalkedOperation } from "@api-contracts/contract-core/contract";
import { fill, h, labelled, liveRegion, region } from "./dom.js";
import type { Judge } from "./judge.js";
import { verdictView } from "./operation.js";

/** `Name: value` lines into headers; lines without a colon are ignored. */
function parseHeaderLines(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return headers;
}

/** A secret of the shape the description's scheme takes, for trying: Standard Webhooks keys are `whsec_` and base64. */
function exampleSecret(judge: Judge): string {
  return judge.webhookSignature?.scheme === "standard-webhooks" ? `whsec_${btoa("docs-console-example-secret-key!")}` : "docs-console-example-secret";
}

export function webhookConsole(webhook: WalkedOperation & { event: string }, judge: Judge): HTMLElement {
  const media = webhook.requestBody?.media[0];
  const headersEditor = h("textarea", { rows: "5", spellcheck: "false", class: "code" });
  const bodyEditor = h("textarea", { rows: "10", spellcheck: "false", class: "code" });
  // Kept in this page's memory only.
  const secret = h("input", { type: "text", class: "secret", value: exampleSecret(judge), spellcheck: "false", autocomplete: "off" });
  const examples = media?.examples ?? [];
  const example = h("select", {}, ...examples.map((e) => h("option", { value: e.name }, e.name)));
  const verdictRegion = liveRegion("Contract verdict", h("p", { class: "quiet" }, "Paste a call, or build a signed example, then judge it."));

  const build = () => {
    const chosen = examples.find((e) => e.name === example.value) ?? examples[0];
    const body = JSON.stringify(chosen?.value ?? { type: webhook.event });
    const signed = secret.value && judge.webhookSignature ? judge.signDelivery(body, secret.value) : {};
    headersEditor.value = Object.entries({ "Content-Type": media?.mediaType ?? "application/json", ...signed })
      .map(([name, value]) => `${name}: ${value}`)
      .join("\n");
    bodyEditor.value = body;
  };

  const judgeIt = () => {
    let verdict;
    try {
      verdict = judge.judgeDelivery({ headers: parseHeaderLines(headersEditor.value), body: bodyEditor.value }, secret.value.trim() || undefined);
    } catch (error) {
      fill(verdictRegion, h("p", { class: "bad" }, error instanceof Error ? error.message : String(error)));
      return;
    }
    fill(verdictRegion, ...verdictView(verdict));
  };

  build();
  return region(
    `Try ${webhook.operationId}`,
    h("h2", { tabindex: "-1" }, "Webhook ", h("code", {}, webhook.event)),
    h("p", {}, "Paste a call as your receiver got it (headers, the raw body byte for byte, your secret) to see whether it keeps the contract, or build a signed example."),
    examples.length > 1 ? labelled("Example payload", example) : null,
    labelled("Secret", secret, "Kept in this page only."),
    labelled("Headers (one Name: value per line)", headersEditor),
    labelled("Raw body", bodyEditor),
    h("div", { class: "actions" }, h("button", { type: "button", class: "primary", onclick: judgeIt }, "Judge the call"), h("button", { type: "button", onclick: build }, "Build a signed example")),
    verdictRegion,
  );
}
