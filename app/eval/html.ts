/**
 * Text into HTML, for the eval report. Everything a report shows came from a user's files or a
 * model's answer, so every text goes through `escapeHtml` before it is placed in the page, in
 * element content and in attribute values alike.
 */

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** `text` safe in element content and in a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/**
 * A value as a short text: a string as it is, anything else as JSON; cut at `max` characters
 * with an ellipsis (a report of hundreds of items must stay readable and small).
 */
export function shortText(value: unknown, max = 400): string {
  if (value === undefined || value === null) return '';
  let text: string;
  if (typeof value === 'string') text = value;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
