// The few DOM helpers the console is written with (no framework: the script stays small).

type Child = Node | string | null | undefined | false;

/** An element with attributes (`on…` ones become listeners) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Record<string, unknown> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false || value === null) continue;
    if (name.startsWith("on") && typeof value === "function") element.addEventListener(name.slice(2), value as EventListener);
    else if (name === "value") (element as HTMLInputElement).value = String(value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  append(element, ...children);
  return element;
}

export function append(parent: Element, ...children: Child[]): void {
  for (const child of children) if (child !== null && child !== undefined && child !== false) parent.append(child);
}

/** Replaces an element's content. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

let lastId = 0;
/** A page-unique id for tying a label to its control. */
export const uid = (stem: string) => `api-console-${stem}-${++lastId}`;

/** A labelled control: `<label>` then the control, tied by id, and a hint that describes it (text, or an element kept up to date). */
export function labelled(text: string, control: HTMLElement, hint?: string | HTMLElement): HTMLElement {
  control.id ||= uid("field");
  const label = h("label", { for: control.id }, text);
  if (!hint) return h("div", { class: "field" }, label, control);
  const note = typeof hint === "string" ? h("small", {}, hint) : hint;
  note.id ||= uid("hint");
  control.setAttribute("aria-describedby", note.id);
  return h("div", { class: "field" }, label, control, note);
}

/** Scrolls the console's panel (never the page behind it) just enough to show the element whole, its top first. */
export function reveal(element: HTMLElement): void {
  const panel = element.closest<HTMLElement>(".api-console");
  if (!panel) return;
  const box = element.getBoundingClientRect();
  const view = panel.getBoundingClientRect();
  const margin = 12;
  if (box.bottom > view.bottom) panel.scrollTop += Math.min(box.bottom - view.bottom + margin, box.top - view.top - margin);
  else if (box.top < view.top) panel.scrollTop -= view.top - box.top + margin;
}

/** A region screen readers and tests find by its name; a live one is read out when its content changes. */
export function region(name: string, ...children: Child[]): HTMLElement {
  return h("section", { role: "region", "aria-label": name }, ...children);
}

export function liveRegion(name: string, ...children: Child[]): HTMLElement {
  return h("section", { role: "region", "aria-label": name, "aria-live": "polite" }, ...children);
}
