// The request object the clients give openapi-fetch in place of the global Request, and the
// transport that sends it. A global Request parses its URL, copies its headers, turns the body
// into a stream and makes a signal of its own, and undici's fetch then builds a second Request
// from it. This class keeps what openapi-fetch hands it (the URL string, the Headers made for the
// call, the serialized body text), so a call builds one undici Request, inside fetch, and a retry
// can send the same text again.

/** Methods the Fetch standard writes in upper case whatever case they are given in. */
const NORMALIZED_METHOD = /^(delete|get|head|options|post|put)$/i;
/** Header values never shown when a request is logged. */
const SECRET_HEADER = /^(authorization|proxy-authorization|cookie|x-api-key)$/;

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
  readonly method: string = "GET";
  readonly headers: Headers;
  readonly redirect: RequestRedirect = "follow";
  #url: string;
  #href: string | undefined;
  #body: BodyInit | null = null;
  #stream: ReadableStream<Uint8Array> | null | undefined;
  #signal: AbortSignal | undefined;
  #used = false;
  /**
   * The RequestInit as given: its other members (cache, keepalive, an undici dispatcher, ...) go to
   * fetch, which gets the members this class keeps from the request itself, whatever the init says.
   */
  #init: RequestInit;

  /**
   * Takes the same arguments as the Request constructor. A Headers object in `init` is used as it
   * is rather than copied: openapi-fetch makes a fresh one for every call. The URL is not checked
   * here: the client checks its base URL once, and fetch rejects a URL it cannot parse.
   */
  constructor(input: string | URL | ClientRequest | Request, init: RequestInit = {}) {
    const { method, headers, body, signal, redirect } = init;
    let source: ClientRequest | undefined;
    if (typeof input === "string" || input instanceof URL) {
      this.#url = String(input);
      this.#init = init;
    } else {
      // A global Request is its own init: its members are getters, so nothing else of it is kept.
      source = ClientRequest.is(input) ? input : new ClientRequest(input.url, input);
      this.#url = source.#url;
      this.method = source.method;
      this.#body = source.#body;
      this.#signal = source.#signal;
      this.redirect = source.redirect;
      this.#init = { ...source.#init, ...init };
    }
    if (method) this.method = NORMALIZED_METHOD.test(method) ? method.toUpperCase() : method;
    this.headers = headers instanceof Headers && !source ? headers : new Headers(headers ?? source?.headers);
    if (body !== undefined) this.#body = body;
    if (this.#body !== null && /^(GET|HEAD)$/.test(this.method)) throw new TypeError("Request with GET/HEAD method cannot have body.");
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

  /** The fetch transport: sends one of these requests, or a global Request, with the global fetch. */
  static send(this: void, request: ClientRequest | Request, init?: RequestInit): Promise<Response> {
    return ClientRequest.is(request) ? fetch(request.#url, request.#fetchInit(init)) : fetch(request, init);
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
    const init: RequestInit = { ...this.#init, ...more, method: this.method, headers: this.#headerRecord(), body: this.#body, redirect: this.redirect };
    // Only a signal the caller gave or a copy was made with: most calls have none.
    if (this.#signal) init.signal = this.#signal;
    // A stream is sent as it arrives; fetch requires saying so.
    if (this.#body instanceof ReadableStream) (init as { duplex?: string }).duplex = "half";
    return init;
  }

  #headerRecord(hide?: RegExp): Record<string, string> {
    const record: Record<string, string> = {};
    this.headers.forEach((value, name) => {
      record[name] = hide?.test(name) ? "[redacted]" : value;
    });
    return record;
  }

  get url(): string {
    return (this.#href ??= new URL(this.#url).href);
  }

  get signal(): AbortSignal {
    return (this.#signal ??= new AbortController().signal);
  }

  /** A stream of the body. Unlike a global Request, reading it leaves a text body sendable. */
  get body(): ReadableStream<Uint8Array> | null {
    const body = this.#body;
    return (this.#stream ??= body instanceof ReadableStream || body === null ? body : new Response(body).body);
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
    return new Uint8Array(await this.arrayBuffer());
  }

  async formData(): Promise<FormData> {
    return this.#take().formData();
  }

  get [Symbol.toStringTag](): string {
    return "ClientRequest";
  }

  /** What `console.log(request)` shows: secrets such as the API key are left out. */
  [Symbol.for("nodejs.util.inspect.custom")](depth: number, options: object, inspect: (value: unknown, options: object) => string): string {
    const shown = { method: this.method, url: this.#url, headers: this.#headerRecord(SECRET_HEADER), redirect: this.redirect, bodyUsed: this.#used };
    return depth < 0 ? "[ClientRequest]" : `ClientRequest ${inspect(shown, { ...options, depth: depth - 1 })}`;
  }
}
