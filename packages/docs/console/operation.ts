// One operation's console: target, key, parameters, body, the mock's Prefer choices, the request's
// verdict before it goes, the answer and the contract's verdict on it, and the copies.
import type { WalkedOperation } from "@api-contracts/contract-core/contract";
import { fill, h, labelled, liveRegion, region } from "./dom.js";
import type { Judge, ProblemAt, Verdict } from "./judge.js";
import { asCurl, asTypeScript, pathAndQuery, requestHeaders, type RequestForm } from "./request.js";
import { send, type Sent } from "./transport.js";

export interface ApiFacts {
  name: string;
  title: string;
  mockPort: number;
  keyPrefix: string;
  client: { package: string; factory: string };
}

export interface Targets {
  mock: string;
  reference: string;
}

export interface Setup {
  api: ApiFacts;
  judge: Judge;
  targets: Targets;
  /** Where the docs server relays requests; undefined when the page sends them itself (opened from disk). */
  relay: string | undefined;
  /** The target a console starts with: the mock, unless only the reference implementation runs. */
  initialTarget: "mock" | "reference";
}

/** Longest answer body shown; the rest is cut (the verdict still reads all of it). */
const SHOWN_BODY_LIMIT = 200_000;

const FAULTS = ["reset", "hang", "slow-body"];

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

/** A value to start a parameter with: its first documented example, for required ones only (optional ones show it as a hint). */
function exampleText(value: unknown): string {
  if (value === undefined) return "";
  return typeof value === "string" ? value : Array.isArray(value) ? value.join(",") : JSON.stringify(value);
}

function problemList(problems: ProblemAt[]): HTMLElement {
  return h("ul", { class: "problems" }, ...problems.map((p) => h("li", {}, h("code", {}, `${p.in} ${p.pointer || "(root)"}`), " ", p.message)));
}

export function verdictView(verdict: Verdict): HTMLElement[] {
  return [h("p", { class: verdict.ok ? "ok" : "bad" }, verdict.ok ? "✓ Keeps the contract: " : "✗ Breaks the contract: ", verdict.summary), verdict.problems.length > 0 ? problemList(verdict.problems) : h("span")];
}

export function operationConsole(op: WalkedOperation, setup: Setup): HTMLElement {
  const { api, judge, targets } = setup;
  const mockKey = `${api.keyPrefix}test`;

  // Target and key.
  const target = h(
    "select",
    {},
    h("option", { value: "mock" }, `Mock (${targets.mock})`),
    h("option", { value: "reference" }, `Reference server (${targets.reference})`),
    h("option", { value: "other" }, "Another base URL (type it below)"),
  );
  target.value = setup.initialTarget;
  const baseUrl = h("input", { type: "text", value: targets[setup.initialTarget], spellcheck: "false", autocomplete: "off" });
  // Kept in this page's memory only: never in the URL, storage or a copied command.
  const apiKey = h("input", { type: "text", class: "secret", value: setup.initialTarget === "mock" ? mockKey : "", spellcheck: "false", autocomplete: "off", "data-lpignore": "true" });
  const isMock = () => target.value === "mock";

  // Parameters: required ones start with their example, optional ones show it as a hint.
  const paramInputs = op.parameters
    .filter((p) => p.in !== "cookie" && !(p.in === "header" && p.name.toLowerCase() === "authorization"))
    .map((p) => {
      const example = exampleText(p.examples[0]?.value);
      const input = h("input", { type: "text", value: p.required ? example : "", placeholder: p.required ? undefined : example || undefined, spellcheck: "false", "data-in": p.in, "data-name": p.name });
      const note = h("small", { class: "member-problem", role: "status" });
      return { parameter: p, input, note, field: labelled(`${p.name} (${p.in}${p.required ? ", required" : ""})`, input) };
    });
  for (const { field, note } of paramInputs) field.append(note);

  // The JSON body, from a chosen documented example.
  const media = op.requestBody?.media.find((m) => m.mediaType === "application/json");
  const bodyExamples = media?.examples ?? [];
  const bodyEditor = media ? h("textarea", { rows: "10", spellcheck: "false", class: "code" }) : undefined;
  if (bodyEditor) bodyEditor.value = bodyExamples[0] ? pretty(bodyExamples[0].value) : "{}";
  const bodyExample =
    bodyExamples.length > 1
      ? h("select", { onchange: () => (bodyEditor!.value = pretty(bodyExamples.find((e) => e.name === bodyExample!.value)?.value)) }, ...bodyExamples.map((e) => h("option", { value: e.name }, e.name)))
      : undefined;
  const bodyProblems = h("div", { class: "member-problem", role: "status" });

  // The mock's Prefer choices, from what the operation documents.
  const answerExamples = op.responses.flatMap((r) => r.media.flatMap((m) => m.examples.filter((e) => e.name !== "example").map((e) => ({ status: r.status, name: e.name }))));
  const preferExample = h("select", {}, h("option", { value: "" }, "(the first documented)"), ...answerExamples.map((e) => h("option", { value: e.name }, `${e.name} (${e.status})`)));
  const preferCode = h("select", {}, h("option", { value: "" }, "(any)"), ...op.responses.filter((r) => /^\d+$/.test(r.status)).map((r) => h("option", { value: r.status }, r.status)));
  const preferDynamic = h("input", { type: "checkbox" });
  const preferLatency = h("input", { type: "number", min: "0", max: "60000", step: "100", placeholder: "0" });
  const preferFault = h("select", {}, h("option", { value: "" }, "(none)"), ...FAULTS.map((f) => h("option", { value: f }, f)));
  const mockControls = h(
    "fieldset",
    { class: "mock-controls" },
    h("legend", {}, "Mock answer (Prefer header)"),
    labelled("Answer example", preferExample),
    labelled("Status", preferCode),
    h("div", { class: "field inline" }, preferDynamic, h("label", {}, "Generate the body from the schema")),
    labelled("Latency (ms)", preferLatency),
    labelled("Fault", preferFault, "reset closes the connection, hang never answers, slow-body trickles the body"),
  );
  (mockControls.querySelector(".inline label") as HTMLLabelElement).htmlFor = (preferDynamic.id ||= `${op.operationId}-dynamic`);

  const prefer = () => {
    if (!isMock()) return undefined;
    const parts = [
      preferExample.value && `example=${preferExample.value}`,
      preferCode.value && `code=${preferCode.value}`,
      preferDynamic.checked && "dynamic=true",
      preferLatency.value && `latency=${preferLatency.value}`,
      preferFault.value && `fault=${preferFault.value}`,
    ].filter(Boolean);
    return parts.length > 0 ? parts.join(", ") : undefined;
  };

  const form = (): RequestForm => {
    const params: RequestForm["params"] = { path: {}, query: {}, header: {} };
    for (const { parameter, input } of paramInputs) params[parameter.in as "path" | "query" | "header"][parameter.name] = input.value.trim();
    return { method: op.method, path: op.path, baseUrl: baseUrl.value.trim(), apiKey: apiKey.value, params, bodyText: bodyEditor?.value, prefer: prefer() };
  };

  const showTarget = () => {
    mockControls.hidden = !isMock();
  };
  target.addEventListener("change", () => {
    if (target.value !== "other") baseUrl.value = targets[target.value as keyof Targets];
    // The mock accepts any key; its test key is offered only while it is the target.
    if (isMock() && apiKey.value === "") apiKey.value = mockKey;
    if (!isMock() && apiKey.value === mockKey) apiKey.value = "";
    showTarget();
  });
  baseUrl.addEventListener("input", () => {
    const typed = baseUrl.value.trim().replace(/\/+$/, "");
    target.value = typed === targets.mock ? "mock" : typed === targets.reference ? "reference" : "other";
    showTarget();
  });

  // Outputs.
  const held = h("div", { class: "held", role: "alert" });
  const copied = h("pre", { class: "code copied", "aria-label": "Copied command", tabindex: "0" });
  const answerView = liveRegion("Response", h("p", { class: "quiet" }, "Nothing sent yet."));
  const verdictRegion = liveRegion("Contract verdict", h("p", { class: "quiet" }, "The contract judges the answer once it comes."));

  const clearMarks = () => {
    for (const { input, note } of paramInputs) {
      input.removeAttribute("aria-invalid");
      note.textContent = "";
    }
    bodyEditor?.removeAttribute("aria-invalid");
    bodyProblems.replaceChildren();
  };

  /** Shows each refused member where it is: next to its parameter, or under the body editor with its pointer. */
  const markProblems = (problems: ProblemAt[]) => {
    for (const problem of problems) {
      const member = problem.pointer.split("/")[1]?.replaceAll("~1", "/").replaceAll("~0", "~");
      const param = paramInputs.find(({ parameter }) => parameter.in === problem.in && parameter.name.toLowerCase() === member?.toLowerCase());
      if (param) {
        param.input.setAttribute("aria-invalid", "true");
        param.note.textContent = problem.message;
      } else if (problem.in === "body" && bodyEditor) {
        bodyEditor.setAttribute("aria-invalid", "true");
        bodyProblems.append(h("p", {}, h("code", {}, problem.pointer || "(root)"), " ", problem.message));
      }
    }
  };

  let inFlight: AbortController | undefined;
  const sendButton = h("button", { type: "button", class: "primary" }, "Send");
  const cancelButton = h("button", { type: "button", hidden: true }, "Cancel");
  cancelButton.addEventListener("click", () => inFlight?.abort());

  const showAnswer = (sent: Sent) => {
    if (sent.kind === "answer") {
      const { answer, ms } = sent;
      const headerRows = Object.entries(answer.headers).map(([name, value]) => h("div", {}, h("dt", {}, name), h("dd", {}, value)));
      let shown = answer.bodyText;
      try {
        shown = pretty(JSON.parse(answer.bodyText));
      } catch {
        // Not JSON: shown as it came.
      }
      if (shown.length > SHOWN_BODY_LIMIT) shown = `${shown.slice(0, SHOWN_BODY_LIMIT)}\n… (${shown.length - SHOWN_BODY_LIMIT} more characters not shown)`;
      fill(
        answerView,
        h("p", { class: "status" }, h("strong", {}, `${answer.status}`), ` in ${Math.round(ms)} ms`),
        h("details", {}, h("summary", {}, `Headers (${headerRows.length})`), h("dl", {}, ...headerRows)),
        h("pre", { class: "code", tabindex: "0", "aria-label": "Answer body" }, shown || "(no body)"),
      );
      fill(verdictRegion, ...verdictView(judge.judgeAnswer(op, answer)));
      return;
    }
    fill(answerView, h("p", { class: "bad" }, sent.message));
    fill(verdictRegion, h("p", { class: "quiet" }, sent.kind === "relay-error" ? "No verdict: the docs server's relay answered, not the target." : "No verdict: no answer came from the target."));
  };

  const go = async () => {
    inFlight?.abort();
    const controller = new AbortController();
    inFlight = controller;
    sendButton.disabled = true;
    cancelButton.hidden = false;
    fill(answerView, h("p", { class: "quiet" }, "Sending…"));
    fill(verdictRegion, h("p", { class: "quiet" }, "Waiting for the answer."));
    const current = form();
    try {
      showAnswer(await send({ method: current.method, baseUrl: current.baseUrl, pathAndQuery: pathAndQuery(current), headers: requestHeaders(current), body: current.bodyText?.trim() || undefined, relay: setup.relay, signal: controller.signal }));
    } finally {
      if (inFlight === controller) {
        sendButton.disabled = false;
        cancelButton.hidden = true;
      }
    }
  };

  sendButton.addEventListener("click", () => {
    clearMarks();
    held.replaceChildren();
    const current = form();
    const verdict = judge.judgeRequest(op, { method: op.method, target: pathAndQuery(current), headers: requestHeaders(current), bodyText: current.bodyText });
    if (verdict.ok) {
      void go();
      return;
    }
    // Held back: the reader sees what the contract refuses, and may still send it to see the server's own answer.
    markProblems(verdict.problems);
    fill(
      held,
      h("p", { class: "bad" }, `Not sent: ${verdict.summary}.`),
      problemList(verdict.problems),
      h("button", { type: "button", onclick: () => (held.replaceChildren(), void go()) }, "Send anyway"),
    );
  });

  const copyButton = (label: string, make: () => string) =>
    h("button", {
      type: "button",
      onclick: () => {
        const text = make();
        copied.textContent = text;
        void navigator.clipboard?.writeText(text).catch(() => {
          // The command stays shown to copy by hand where the clipboard is refused.
        });
      },
    }, label);

  showTarget();
  return region(
    `Try ${op.operationId}`,
    h("h2", { tabindex: "-1" }, h("span", { class: "method" }, op.method), " ", h("code", {}, op.path)),
    typeof op.operation.summary === "string" ? h("p", {}, op.operation.summary) : null,
    h(
      "fieldset",
      {},
      h("legend", {}, "Target"),
      labelled("Target", target),
      labelled("Base URL", baseUrl),
      labelled("API key", apiKey, "Kept in this page only; copies read it from $API_KEY."),
      h("p", { class: "quiet" }, setup.relay ? "The docs server relays the request to the target." : "This page sends the request itself: the target must allow this page's origin (CORS)."),
    ),
    paramInputs.length > 0 ? h("fieldset", {}, h("legend", {}, "Parameters"), ...paramInputs.map((p) => p.field)) : null,
    bodyEditor ? h("fieldset", {}, h("legend", {}, "Body"), bodyExample ? labelled("Body example", bodyExample) : null, labelled("Body (JSON)", bodyEditor), bodyProblems) : null,
    mockControls,
    h("div", { class: "actions" }, sendButton, cancelButton, copyButton("Copy as curl", () => asCurl(form())), copyButton("Copy as TypeScript", () => asTypeScript(form(), api.client))),
    held,
    copied,
    answerView,
    verdictRegion,
  );
}
