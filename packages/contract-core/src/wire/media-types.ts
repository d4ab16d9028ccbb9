// Media types as the contract reads them: a Content-Type's essence, JSON types, and which of the
// documented types covers a received one.

/** A Content-Type without its parameters, lower case: `application/json; charset=utf-8` is `application/json`. */
export function mediaTypeOf(contentType: string | null | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

export function isJsonMediaType(mediaType: string): boolean {
  const essence = mediaTypeOf(mediaType);
  return essence === "application/json" || essence.endsWith("+json");
}

/** The documented media type that covers a Content-Type: the same type, `type/*` or `*\/*`. */
export function matchMediaType(contentType: string, documented: readonly string[]): string | undefined {
  const received = mediaTypeOf(contentType);
  return documented.find((key) => {
    const type = key.toLowerCase();
    if (type === received || type === "*/*") return true;
    return type.endsWith("/*") && received.startsWith(type.slice(0, -1));
  });
}
