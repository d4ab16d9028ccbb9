// TEMPORARY until contract-core's webhook signatures are browser-safe: contract-core's webhook
// module imports `node:crypto` and uses `Buffer`, which a browser has neither of. The console's
// build points both here (scripts: src/console-bundle.mjs); this file goes when they are gone.
import { hmac } from "fast-sha256";

const bytes = (value: string | Uint8Array) => (typeof value === "string" ? new TextEncoder().encode(value) : value);

export function createHmac(algorithm: string, key: string | Uint8Array) {
  if (algorithm !== "sha256") throw new Error(`only sha256 is available in the browser, not ${algorithm}`);
  const parts: Uint8Array[] = [];
  return {
    update(data: string | Uint8Array) {
      parts.push(bytes(data));
      return this;
    },
    digest(encoding: "hex") {
      if (encoding !== "hex") throw new Error(`only hex digests are available in the browser, not ${encoding}`);
      const message = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
      let at = 0;
      for (const part of parts) {
        message.set(part, at);
        at += part.length;
      }
      return [...hmac(bytes(key), message)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
    },
  };
}

export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < Math.min(a.length, b.length); i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

export function randomUUID(): string {
  return crypto.randomUUID();
}

export const Buffer = { from: (text: string) => bytes(text) };
