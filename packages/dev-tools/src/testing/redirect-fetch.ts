// Preloaded into a README example (node --import @api-contracts/dev-tools/testing/redirect-fetch)
// so that it runs unchanged against a local server: requests to REDIRECT_FROM (the live service)
// are sent to REDIRECT_TO instead.
const { REDIRECT_FROM: from, REDIRECT_TO: to } = process.env;
const realFetch = globalThis.fetch;
globalThis.fetch = (input: string | URL | Request, init?: RequestInit) => {
  const request = new Request(input, init);
  if (!from || !to || !request.url.startsWith(from)) return realFetch(request);
  return realFetch(new Request(to + request.url.slice(from.length), request));
};
