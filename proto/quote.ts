/** Longest piece of client input quoted back in an error message (then "…"). */
export const MAX_QUOTED_CHARS = 40;

/**
 * Client input as an error message quotes it: JSON-quoted, at most MAX_QUOTED_CHARS characters
 * and an ellipsis, so a 2 MB address or a 30 KB header never comes back whole.
 */
export function quoteInput(value: string): string {
  const short = value.length > MAX_QUOTED_CHARS ? `${value.slice(0, MAX_QUOTED_CHARS)}…` : value;
  return JSON.stringify(short);
}
