// Extracts the terms a seed document commits the spec to: field names, enumerated values, paths
// and error messages. The seeds are prose with Markdown tables, so the rules below follow their
// notation: tables name fields in the first column, `{a: type, b}` literals name members,
// `x|y` lists values, and back-quoted sentences are messages.

export interface SeedTerms {
  fields: Set<string>;
  values: Set<string>;
  names: Set<string>;
  messages: Set<string>;
  operations: Set<string>;
}

const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/;
// Back-quoted notation that documents the seed's own conventions rather than the API.
const notation = new Set(["X | null", "Content-Type: application/json", "Authorization: Bearer <API_KEY>", "success: false"]);

function addMembersOfLiteral(literal: string, terms: SeedTerms): void {
  // A member name opens the literal or follows a comma; what follows a colon is its type or value.
  for (const match of literal.matchAll(/[{,]\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?=[:,}])/g)) {
    terms.fields.add(match[1]!);
  }
  for (const match of literal.matchAll(/:\s*([a-z_]+(?:\|[a-z_]+)+)/g)) {
    for (const value of match[1]!.split("|")) terms.values.add(value);
  }
}

export function extractSeedTerms(text: string): SeedTerms {
  const terms: SeedTerms = {
    fields: new Set(),
    values: new Set(),
    names: new Set(),
    messages: new Set(),
    operations: new Set(),
  };
  for (const line of text.split("\n")) {
    const cell = /^\|\s*([^|]+?)\s*\|/.exec(line)?.[1];
    if (cell && identifier.test(cell) && !["Field", "Member", "State", "Endpoint"].includes(cell)) {
      terms.fields.add(cell);
    }
  }
  for (const match of text.matchAll(/`([^`]+)`/g)) {
    const token = match[1]!.trim();
    if (notation.has(token)) continue;
    const operation = /^(GET|POST|DELETE|PUT|PATCH) (\/\S+)$/.exec(token);
    if (operation) terms.operations.add(`${operation[1]!.toLowerCase()} ${operation[2]}`);
    else if (token.startsWith("/")) continue;
    else if (token.includes("{") || token.includes(":")) addMembersOfLiteral(token, terms);
    else if (/^[A-Z].* .*[a-z.]$/.test(token)) terms.messages.add(token);
    else if (identifier.test(token)) terms.names.add(token);
    else if (/^[a-z_]+(\.[a-z_A-Z]+)+$/.test(token)) for (const part of token.split(".")) terms.names.add(part);
  }
  return terms;
}
