// The request object the clients give openapi-fetch in place of the global Request, and the
// transport that sends it. A global Request parses its URL, copies its headers, turns the body
// into a stream and makes a signal of its own, and undici's fetch then builds a second Request
// from it. This class keeps what openapi-fetch hands it (the URL string, the Headers made for the
// call, the serialized body text), so a call builds one undici Request, inside fetch, and a retry
// can send the same text again.

/**
 * A Request for openapi-fetch and its middleware: `url`, `method`, `headers`, `signal`,
 * `redirect`, `body`, `bodyUsed`, `clone()`, `text()`, `json()`, `arrayBuffer()`, `blob()`,
 * `bytes()` and `formData()` behave as on a global Request. It is not an instance of the global
 * Request; `new Request(request.url, request)` makes one.
 */
export class ClientRequest {
  readonly method: string;
  /** The URL as openapi-fetch built it, not parsed again (a Request would give it normalized, as `new URL(url).href`). */
  readonly url: string;
  readonly redirect: RequestRedirect;
  /** Kept off the instance, so that logging a request shows its method and URL but no header, and so no API key. */
  #headers: Headers;
  #body: BodyInit | null;
  #stream: ReadableStream<Uint8Array> | null | undefined;
  #signal: AbortSignal | null | undefined;
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
    // A global Request (instanceof says true for one, see below) is its own init: its members are
    // getters, so nothing else of it is kept.
    const source = input instanceof ClientRequest ? (ClientRequest.is(input) ? input : new ClientRequest((input as Request).url, input as Request)) : undefined;
    this.url = source ? source.url : String(input);
    this.#init = source ? { ...source.#init, ...init } : init;
    // Upper case, as HTTP methods are sent: Request upper-cases only the six standard ones, this
    // class every method (openapi-fetch gives them in upper case already).
    this.method = (init.method ?? source?.method ?? "GET").toUpperCase();
    this.#headers = init.headers instanceof Headers && !source ? init.headers : new Headers(init.headers ?? source?.headers);
    this.#body = init.body !== undefined ? init.body : source ? source.#body : null;
    if (this.#body !== null && /^(GET|HEAD)$/.test(this.method)) throw new TypeError("Request with GET/HEAD method cannot have body.");
    this.#signal = init.signal ?? (source && source.#signal);
    this.redirect = init.redirect ?? source?.redirect ?? "follow";
  }

  /** Whether `value` is one of these requests (`instanceof` also accepts a global Request, see below). */
  static is(value: unknown): value is ClientRequest {
    return #headers in Object(value);
  }

  /**
   * openapi-fetch checks `instanceof` on what middleware returns; a middleware written for any
   * openapi-fetch client may return a global Request, and the transport sends that as it is.
   */
  static [Symbol.hasInstance](value: unknown): boolean {
    return ClientRequest.is(value) || value instanceof Request;
  }

  /** The fetch transport: sends one of these requests, or a global Request, with the global fetch; `init` overrides (e.g. a signal). */
  static send(this: void, request: ClientRequest | Request, init?: RequestInit): Promise<Response> {
    return ClientRequest.is(request) ? fetch(request.url, request.#fetchInit(init)) : fetch(request, init);
  }

  /** A global Request with the same members and `init` over them, for code that needs one (e.g. a fetch of its own). */
  static toRequest(request: ClientRequest | Request, init?: RequestInit): Request {
    return ClientRequest.is(request) ? new Request(request.url, request.#fetchInit(init)) : new Request(request, init);
  }

  /** The caller's signal, if it gave one; `signal` makes one on first read otherwise. */
  static ownSignal(request: ClientRequest | Request): AbortSignal | null | undefined {
    return ClientRequest.is(request) ? request.#signal : request.signal;
  }

  #fetchInit(more?: RequestInit): RequestInit {
    // fetch reads a plain record of headers several microseconds faster than a Headers object.
    const headers: Record<string, string> = {};
    this.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const init: RequestInit = { ...this.#init, ...more, method: this.method, headers, body: this.#body, redirect: this.redirect };
    // Only a signal the caller gave or a copy was made with (the field, not the getter, which makes
    // one): most calls have none.
    init.signal ??= this.#signal;
    // A stream is sent as it arrives; fetch requires saying so.
    if (this.#body instanceof ReadableStream) (init as { duplex?: string }).duplex = "half";
    return init;
  }

  get headers(): Headers {
    return this.#headers;
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
    if (this.#used) throw new TypeError("Body is unusable: Body has already been read");
    if (!(this.#body instanceof ReadableStream)) return new ClientRequest(this);
    const [mine, theirs] = this.#body.tee();
    this.#body = mine;
    this.#stream = undefined;
    return new ClientRequest(this, { body: theirs });
  }

  /** Marks the body read and wraps it in a Response, whose readers do the decoding. */
  #take(): Response {
    if (this.#used) throw new TypeError("Body is unusable: Body has already been read");
    this.#used = true;
    const type = this.headers.get("content-type");
    return new Response(this.#body, type ? { headers: { "content-type": type } } : undefined);
  }

  async text(): Promise<string> {
    // A text body, as openapi-fetch gives JSON, is handed back as it is: no Response to decode it.
    if (typeof this.#body !== "string" || this.#used) return this.#take().text();
    this.#used = true;
    return this.#body;
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


}
