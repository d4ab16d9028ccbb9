// One operation's console: target, key, parameters, body, the mock's Prefer choices, the service's
// decision on the request before it goes, the answer and the contract's verdict on it, and the copies.
import { FAULT_NAMES, formatPrefer, MAX_LATENCY_MS, type ApiEntry, type ContractProblem, type FaultName, type WalkedOperation } from "@api-contracts/contract-core/contract";
import { fill, h, labelled, liveRegion, region, reveal } from "./dom.js";
import type { Judge, Verdict } from "./judge.js";
import { asCurl, asTypeScript, bodyOf, indentedJson, pathAndQuery, requestHeaders, type RequestForm } from "./request.js";
import { send, type Sent } from "./transport.js";

/** The servers a console can send to: those that run (the docs server says which), at least one. */
export interface Targets {
  mock?: string | undefined;
  reference?: string | undefined;
}

export interface Setup {
  api: ApiEntry;
  judge: Judge;
  targets: Targets;
  /** Where the docs server relays requests; undefined when the page sends them itself (opened from disk). */
  relay: string | undefined;
  /** The target a console starts with: the mock, unless only the reference implementation runs. */
  initialTarget: "mock" | "reference";
}

/** Longest answer body shown; the rest is cut (the verdict still reads all of it). */
const SHOWN_BODY_LIMIT = 200_000;

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

/** A value to start a parameter with: its first documented example, for required ones only (optional ones show it as a hint). */
function exampleText(value: unknown): string {
  if (value === undefined) return "";
  return typeof value === "string" ? value : Array.isArray(value) ? value.join(",") : JSON.stringify(value);
}

function problemList(problems: ContractProblem[]): HTMLElement {
  return h("ul", { class: "problems" }, ...problems.map((p) => h("li", {}, h("code", {}, `${p.in} ${p.pointer || "(root)"}`), " ", p.message)));
}

export function verdictView(verdict: Verdict): HTMLElement[] {
  return [h("p", { class: verdict.ok ? "ok" : "bad" }, verdict.ok ? "✓ Keeps the contract: " : "✗ Breaks the contract: ", verdict.summary), verdict.problems.length > 0 ? problemList(verdict.problems) : h("span")];
}

export function operationConsole(op: WalkedOperation, setup: Setup): HTMLElement {
  const { api, judge, targets } = setup;
  const mockKey = `${api.key.prefix}test`;
  const keyVariable = api.key.variable;

  // Target and key. A target is offered only when it runs (the docs server says which).
  const target = h(
    "select",
    {},
    targets.mock !== undefined && h("option", { value: "mock" }, `Mock (${targets.mock})`),
    targets.reference !== undefined && h("option", { value: "reference" }, `Reference server (${targets.reference})`),
    h("option", { value: "other" }, "Another base URL (type it below)"),
  );
  target.value = setup.initialTarget;
  const targetUrl = (name: string) => (name === "reference" ? targets.reference : name === "mock" ? targets.mock : undefined);
  const baseUrl = h("input", { type: "text", value: targetUrl(setup.initialTarget), spellcheck: "false", autocomplete: "off" });
  // Kept in this page's memory only: never in the URL, storage or a copied command.
  const apiKey = h("input", { type: "text", class: "secret", value: setup.initialTarget === "mock" ? mockKey : "", spellcheck: "false", autocomplete: "off", "data-lpignore": "true" });
  const keyNote = h("small", { class: "quiet" });
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
  const preferDynamic = h("input", { type: "checkbox", id: `${op.operationId}-dynamic` });
  const preferLatency = h("input", { type: "number", min: "0", max: String(MAX_LATENCY_MS), step: "100", placeholder: "0" });
  const preferFault = h("select", {}, h("option", { value: "" }, "(none)"), ...FAULT_NAMES.map((f) => h("option", { value: f }, f)));
  const mockControls = h(
    "fieldset",
    { class: "mock-controls" },
    h("legend", {}, "Mock answer (Prefer header)"),
    labelled("Answer example", preferExample),
    labelled("Status", preferCode),
    h("div", { class: "field inline" }, preferDynamic, h("label", { for: preferDynamic.id }, "Generate the body from the schema")),
    labelled("Latency (ms)", preferLatency),
    labelled("Fault", preferFault, "reset closes the connection, hang never answers, slow-body trickles the body"),
  );

  const prefer = () =>
    (isMock() &&
      formatPrefer({
        ...(preferCode.value ? { code: Number(preferCode.value) } : {}),
        ...(preferExample.value ? { example: preferExample.value } : {}),
        ...(preferDynamic.checked ? { dynamic: true } : {}),
        ...(preferLatency.value ? { latency: Number(preferLatency.value) } : {}),
        ...(preferFault.value ? { fault: preferFault.value as FaultName } : {}),
      })) ||
    undefined;

  const form = (): RequestForm => {
    const params: RequestForm["params"] = { path: {}, query: {}, header: {} };
    for (const { parameter, input } of paramInputs) params[parameter.in as "path" | "query" | "header"][parameter.name] = input.value.trim();
    return { method: op.method, path: op.path, baseUrl: baseUrl.value.trim(), apiKey: apiKey.value, params, bodyText: bodyEditor?.value, prefer: prefer() };
  };

  // The key stays as typed whatever the target: a target that needs another is told by the request's verdict.
  const showTarget = () => {
    mockControls.hidden = !isMock();
    keyNote.textContent = `Kept in this page only; copies read it from $${keyVariable}.${!isMock() && apiKey.value === mockKey ? ` ${mockKey} is the mock's test key: this target may not know it.` : ""}`;
  };
  target.addEventListener("change", () => {
    const url = targetUrl(target.value);
    if (url !== undefined) baseUrl.value = url;
    if (isMock() && apiKey.value === "") apiKey.value = mockKey;
    showTarget();
  });
  baseUrl.addEventListener("input", () => {
    const typed = baseUrl.value.trim().replace(/\/+$/, "");
    target.value = typed === targets.mock ? "mock" : typed === targets.reference ? "reference" : "other";
    showTarget();
  });
  apiKey.addEventListener("input", showTarget);

  // Outputs: the request's verdict, then the answer's, then the answer, so that a verdict is where the reader looks after Send.
  const requestVerdict = liveRegion("Request verdict");
  const verdictRegion = liveRegion("Contract verdict", h("p", { class: "quiet" }, "The contract judges the answer once it comes."));
  const answerView = liveRegion("Response", h("p", { class: "quiet" }, "Nothing sent yet."));
  const copied = h("pre", { class: "code copied", "aria-label": "Copied command", tabindex: "0" });

  const clearMarks = () => {
    for (const { input, note } of paramInputs) {
      input.removeAttribute("aria-invalid");
      note.textContent = "";
    }
    bodyEditor?.removeAttribute("aria-invalid");
    bodyProblems.replaceChildren();
  };

  /** Shows each refused member where it is: next to its parameter, or under the body editor with its pointer. */
  const markProblems = (problems: ContractProblem[]) => {
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
      let shown = indentedJson(answer.bodyText);
      if (shown.length > SHOWN_BODY_LIMIT) shown = `${shown.slice(0, SHOWN_BODY_LIMIT)}\n… (${shown.length - SHOWN_BODY_LIMIT} more characters not shown)`;
      fill(
        answerView,
        h("p", { class: "status" }, h("strong", {}, `${answer.status}`), ` in ${Math.round(ms)} ms`),
        h("details", {}, h("summary", {}, `Headers (${headerRows.length})`), h("dl", {}, ...headerRows)),
        h("pre", { class: "code", tabindex: "0", "aria-label": "Answer body" }, shown || "(no body)"),
      );
      fill(verdictRegion, ...verdictView(judge.judgeAnswer(op, answer)));
    } else {
      fill(answerView, h("p", { class: "bad" }, sent.message));
      fill(verdictRegion, h("p", { class: "quiet" }, sent.kind === "relay-error" ? "No verdict: the docs server's relay answered, not the target." : "No verdict: no answer came from the target."));
    }
    reveal(verdictRegion);
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
      showAnswer(await send({ method: current.method, baseUrl: current.baseUrl, pathAndQuery: pathAndQuery(current), headers: requestHeaders(current), body: bodyOf(current), relay: setup.relay, signal: controller.signal }));
    } finally {
      if (inFlight === controller) {
        sendButton.disabled = false;
        cancelButton.hidden = true;
      }
    }
  };

  sendButton.addEventListener("click", () => {
    clearMarks();
    const current = form();
    // The service's decision, made before anything is sent.
    const verdict = judge.judgeRequest({ method: op.method, target: pathAndQuery(current), headers: requestHeaders(current), body: bodyOf(current) });
    if (verdict.ok) {
      fill(requestVerdict, h("p", { class: "ok" }, "✓ The request keeps the contract."));
      void go();
      return;
    }
    // Held back: what an earlier request got is no longer on screen, and the reader sees what the
    // service would answer, each member at its field, and may still send it to see the server's own answer.
    markProblems(verdict.problems);
    fill(answerView, h("p", { class: "quiet" }, "Not sent."));
    fill(verdictRegion, h("p", { class: "quiet" }, "No answer to judge: the request was held back."));
    fill(
      requestVerdict,
      h("p", { class: "bad", role: "alert" }, `✗ Not sent: ${verdict.summary}.`),
      problemList(verdict.problems),
      h("button", { type: "button", onclick: () => (fill(requestVerdict, h("p", { class: "quiet" }, "Sent anyway.")), void go()) }, "Send anyway"),
    );
    reveal(requestVerdict);
  });

  const copyButton = (label: string, make: () => string) =>
    h("button", {
      type: "button",
      onclick: () => {
        const text = make();
        copied.textContent = text;
        reveal(copied);
        void navigator.clipboard?.writeText(text).catch(() => {
          // The command stays shown to copy by hand where the clipboard is refused.
        });
      },
    }, label);

  showTarget();
  const client = api.client;
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
      labelled("API key", apiKey, keyNote),
      h("p", { class: "quiet" }, setup.relay ? "The docs server relays the request to the target." : "This page sends the request itself: the target must allow this page's origin (CORS)."),
    ),
    paramInputs.length > 0 ? h("fieldset", {}, h("legend", {}, "Parameters"), ...paramInputs.map((p) => p.field)) : null,
    bodyEditor ? h("fieldset", {}, h("legend", {}, "Body"), bodyExample ? labelled("Body example", bodyExample) : null, labelled("Body (JSON)", bodyEditor), bodyProblems) : null,
    mockControls,
    h(
      "div",
      { class: "actions" },
      sendButton,
      cancelButton,
      copyButton("Copy as curl", () => asCurl(form(), keyVariable)),
      client && copyButton("Copy as TypeScript", () => asTypeScript(form(), client, keyVariable)),
    ),
    requestVerdict,
    verdictRegion,
    answerView,
    copied,
  );
}
