/** A count with its noun as the tools' summaries print it: `1 violation`, `2 violations`, `0 ids`. */
export function counted(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
