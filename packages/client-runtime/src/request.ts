// The request object the clients give openapi-fetch in place of the global Request, and the
// transport that sends it. A global Request parses its URL, copies its headers, turns the body
// into a stream and makes a signal of its own, and undici's fetch then builds a second Request
// from it. This class keeps what openapi-fetch hands it (the URL string, the Headers made for the
// call, the serialized body text), so a call builds one undici Request, inside fetch, and a retry
// can send the same text again.

const INSPECT = Symbol.for("nodejs.util.inspect.custom");
/** Methods the Fetch standard writes in upper case whatever case they are given in. */
const NORMALIZED_METHODS = new Set(["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"]);
/** The RequestInit members a copy keeps in its own fields rather than in the init handed to fetch. */
const OWN_INIT = new Set(["method", "headers", "body", "signal", "redirect"]);
/** Header values never shown when a request is logged. */
const SECRET_HEADERS = new Set(["authorization", "proxy-authorization", "cookie", "x-api-key"]);

type RequestSource = string | URL | ClientRequest | Request;

function normalizeMethod(method: string): string {
  const upper = method.toUpperCase();
  return NORMALIZED_METHODS.has(upper) ? upper : method;
}

function unusable(): TypeError {
  return new TypeError("Body is unusable: Body has already been read");
}

/**
 * A Request for openapi-fetch and its middleware: `url`, `method`, `headers`, `signal`,
 * `redirect`, `body`, `bodyUsed`, `clone()`, `text()`, `json()`, `arrayBuffer()`, `blob()`,
 * `bytes()` and `formData()` behave as on a global Request. It is not an instance of the global
 * Request; `new Request(request.url, request)` makes one.
 */
export class ClientRequest {
  readonly method: string;
  readonly headers: Headers;
  readonly redirect: RequestRedirect;
  #url: string;
  #href: string | undefined;
  #body: BodyInit | null;
  #stream: ReadableStream<Uint8Array> | null | undefined;
  #signal: AbortSignal | undefined = undefined;
  #used = false;
  /** The RequestInit as given: its other members (cache, keepalive, an undici dispatcher, ...) go to fetch. */
  #init: RequestInit;

  /**
   * Takes the same arguments as the Request constructor. A Headers object in `init` is used as it
   * is rather than copied: openapi-fetch makes a fresh one for every call. The URL is not checked
   * here: the client checks its base URL once, and fetch rejects a URL it cannot parse.
   */
  constructor(input: RequestSource, init: RequestInit = {}) {
    const { method, headers, body, signal, redirect } = init;
    let source: ClientRequest | undefined;
    if (typeof input === "string" || input instanceof URL) {
      this.#url = typeof input === "string" ? input : input.href;
      this.method = "GET";
      this.#body = null;
      this.redirect = "follow";
      this.#init = init;
    } else {
      source = ClientRequest.is(input) ? input : ClientRequest.from(input);
      this.#url = source.#url;
      this.method = source.method;
      this.#body = source.#body;
      this.#signal = source.#signal;
      this.redirect = source.redirect;
      // The copies timeout and retry make pass only a signal; keeping the original init keeps
      // every request of one shape for the engine.
      this.#init = source.#init;
      for (const key in init) {
        if (!OWN_INIT.has(key)) this.#init = { ...this.#init, [key]: init[key as keyof RequestInit] };
      }
    }
    if (method !== undefined) this.method = NORMALIZED_METHODS.has(method) ? method : normalizeMethod(method);
    this.headers = headers instanceof Headers && source === undefined ? headers : new Headers(headers ?? source?.headers);
    if (body !== undefined) this.#body = body;
    if (this.#body !== null && (this.method === "GET" || this.method === "HEAD")) {
      throw new TypeError("Request with GET/HEAD method cannot have body.");
    }
    if (signal) this.#signal = signal;
    if (redirect) this.redirect = redirect;
  }

  /** Whether `value` is one of these requests (`instanceof` also accepts a global Request, see below). */
  static is(value: unknown): value is ClientRequest {
    return typeof value === "object" && value !== null && #url in value;
  }

  /**
   * openapi-fetch checks `instanceof` on what middleware returns; a middleware written for any
   * openapi-fetch client may return a global Request, and the transport sends that as it is.
   */
  static [Symbol.hasInstance](value: unknown): boolean {
    return ClientRequest.is(value) || value instanceof Request;
  }

  /** Copies a global Request; its body stream is taken over, as `new Request(request)` does. */
  static from(request: Request): ClientRequest {
    return new ClientRequest(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: request.signal,
      redirect: request.redirect,
    });
  }

  /** The fetch transport: sends one of these requests, or a global Request, with the global fetch. */
  static send(this: void, request: ClientRequest | Request, init?: RequestInit): Promise<Response> {
    return ClientRequest.is(request) ? globalThis.fetch(request.#url, request.#fetchInit(init)) : globalThis.fetch(request, init);
  }

  /** A global Request with the same members, for code that needs one (e.g. a fetch of its own). */
  static toRequest(request: ClientRequest | Request): Request {
    return ClientRequest.is(request) ? new Request(request.#url, request.#fetchInit()) : request;
  }

  /** The caller's signal, if it gave one; `signal` makes one on first read otherwise. */
  static ownSignal(request: ClientRequest | Request): AbortSignal | undefined {
    return ClientRequest.is(request) ? request.#signal : request.signal;
  }

  #fetchInit(more?: RequestInit): RequestInit {
    // fetch reads a plain record of headers several microseconds faster than a Headers object.
    const headers: Record<string, string> = {};
    this.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const init: RequestInit = { ...this.#init, ...more, method: this.method, headers, body: this.#body, redirect: this.redirect };
    if (this.#signal) init.signal = this.#signal;
    // A stream is sent as it arrives; fetch requires saying so.
    if (this.#body instanceof ReadableStream) (init as { duplex?: string }).duplex = "half";
    return init;
  }

  get url(): string {
    return (this.#href ??= new URL(this.#url).href);
  }

  get signal(): AbortSignal {
    return (this.#signal ??= new AbortController().signal);
  }

  /** A stream of the body. Unlike a global Request, reading it leaves a text body sendable. */
  get body(): ReadableStream<Uint8Array> | null {
    if (this.#stream === undefined) {
      this.#stream = this.#body instanceof ReadableStream || this.#body === null ? this.#body : new Response(this.#body).body;
    }
    return this.#stream;
  }

  /** Lets `new Request(url, request)` take this request as its init, body stream included. */
  get duplex(): "half" {
    return "half";
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  clone(): ClientRequest {
    if (this.#used) throw unusable();
    if (!(this.#body instanceof ReadableStream)) return new ClientRequest(this);
    const [mine, theirs] = this.#body.tee();
    this.#body = mine;
    this.#stream = undefined;
    return new ClientRequest(this, { body: theirs });
  }

  /** Marks the body read and wraps it in a Response, whose readers do the decoding. */
  #take(): Response {
    if (this.#used) throw unusable();
    this.#used = true;
    const type = this.headers.get("content-type");
    return new Response(this.#body, type ? { headers: { "content-type": type } } : undefined);
  }

  async text(): Promise<string> {
    if (typeof this.#body === "string" && !this.#used) {
      this.#used = true;
      return this.#body;
    }
    return this.#take().text();
  }

  async json(): Promise<any> {
    return JSON.parse(await this.text());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return this.#take().arrayBuffer();
  }

  async blob(): Promise<Blob> {
    return this.#take().blob();
  }

  async bytes(): Promise<Uint8Array> {
    return new Uint8Array(await this.#take().arrayBuffer());
  }

  async formData(): Promise<FormData> {
    return this.#take().formData();
  }

  get [Symbol.toStringTag](): string {
    return "ClientRequest";
  }

  /** What `console.log(request)` shows: secrets such as the API key are left out. */
  [INSPECT](depth: number, options: object, inspect: (value: unknown, options: object) => string): string {
    const headers: Record<string, string> = {};
    this.headers.forEach((value, name) => {
      headers[name] = SECRET_HEADERS.has(name) ? "[redacted]" : value;
    });
    const shown = { method: this.method, url: this.#url, headers, redirect: this.redirect, bodyUsed: this.#used };
    return depth < 0 ? "[ClientRequest]" : `ClientRequest ${inspect(shown, { ...options, depth: depth - 1 })}`;
  }
}
