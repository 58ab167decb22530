// The input file of a batch: one JSON request per line, `{custom_id, method: "POST", url, body}`,
// every url the batch's endpoint and every custom_id distinct. Validated whole before any line
// runs (the batch's `validating` state): a bad line fails the batch with an error naming it, and
// nothing is charged.

/** One request of a batch, by its 0-based index among the file's non-empty lines. */
export type InputLine = { index: number; customId: string; body: Record<string, unknown> };

/** An error of the input file, as the batch's `errors.data[]` gives it (`line` is 1-based). */
export type LineError = { code: string; message: string; param: string | null; line: number | null };

export const MAX_BATCH_LINES = 50_000;
/** How many errors a failed validation reports (the first ones). */
const MAX_ERRORS = 20;

type Parsed = { lines: InputLine[]; errors: LineError[] };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Parses and checks the file's lines; `errors` empty means every line is a well-formed request. */
export function parseInputLines(text: string, endpoint: string): Parsed {
  const lines: InputLine[] = [];
  const errors: LineError[] = [];
  const seen = new Set<string>();
  const fail = (line: number, code: string, message: string, param: string | null = null) => {
    if (errors.length < MAX_ERRORS) errors.push({ code, message, param, line });
  };
  const rows = text.split("\n");
  for (let i = 0; i < rows.length; i++) {
    const raw = rows[i]!.trim();
    if (!raw) continue;
    const lineNo = i + 1;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      fail(lineNo, "invalid_json_line", `Line ${lineNo} is not valid JSON.`);
      continue;
    }
    if (!isObject(value)) {
      fail(lineNo, "invalid_request", `Line ${lineNo} is not a JSON object.`);
      continue;
    }
    const { custom_id: customId, method, url, body } = value;
    if (typeof customId !== "string" || !customId) fail(lineNo, "missing_required_parameter", `Line ${lineNo} has no custom_id (a non-empty string).`, "custom_id");
    else if (seen.has(customId)) fail(lineNo, "duplicate_custom_id", `Line ${lineNo} repeats the custom_id '${customId}'; every line needs its own.`, "custom_id");
    else if (method !== "POST") fail(lineNo, "invalid_method", `Line ${lineNo}: method must be POST.`, "method");
    else if (url !== endpoint) fail(lineNo, "mismatched_endpoint", `Line ${lineNo}: url '${String(url)}' is not the batch's endpoint '${endpoint}'.`, "url");
    else if (!isObject(body)) fail(lineNo, "invalid_request", `Line ${lineNo}: body must be a JSON object.`, "body");
    else if (typeof body.model !== "string" || !body.model) fail(lineNo, "missing_required_parameter", `Line ${lineNo}: body.model is required.`, "body.model");
    else {
      seen.add(customId);
      lines.push({ index: lines.length, customId, body });
      continue;
    }
  }
  if (!errors.length && lines.length === 0) errors.push({ code: "empty_file", message: "The input file has no request lines.", param: "input_file_id", line: null });
  if (lines.length > MAX_BATCH_LINES) errors.push({ code: "too_many_lines", message: `A batch holds at most ${MAX_BATCH_LINES} lines; this file has ${lines.length}.`, param: "input_file_id", line: null });
  return { lines, errors };
}
