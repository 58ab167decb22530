// CSV as RFC 4180 writes it (CRLF line ends, fields with commas, quotes or line breaks quoted,
// quotes doubled), safe to open in a spreadsheet: the usage and audit exports.

export function csvField(value: string | number | null): string {
  if (value === null) return "";
  let text = String(value);
  // A spreadsheet runs a cell that starts with = + - @ as a formula: key names are typed by
  // people, so such text is prefixed with ' to be shown as text (numbers are never touched).
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One line of fields, CRLF-ended. */
export const csvLine = (fields: Array<string | number | null>) => fields.map(csvField).join(",") + "\r\n";
