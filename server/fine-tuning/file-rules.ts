// What a fine-tuning file must be (OpenAI's chat format) and how many tokens it trains: each
// non-empty line one example, a JSON object with a `messages` array, and the tokens of an example
// counted exactly as the node that trains it counts them (same o200k tokenizer, same per-message
// overhead), so the hold made at create and the node's `trained_tokens` agree. A failure names
// its 1-based line: "Line 4: message 2 has no role".
import { encoder } from "../inference/chat/count-prompt";
import { checkExample, type Example } from "./example-shape";

/** Tokens a chat template adds per message (role markers): the node counts the same. */
const PER_MESSAGE = 3;
/** OpenAI asks for at least 10 training examples. */
export const MIN_TRAINING_EXAMPLES = 10;
/** A file's reading stops listing problems past this many (the first is what a job's error shows). */
const MAX_ERRORS = 100;

export type FileError = { line: number; message: string };
export type TrainingFileReport = { examples: number; tokensPerEpoch: number; errors: FileError[] };

type Tokenizer = (text: string) => number;

async function tokenizer(): Promise<Tokenizer> {
  // Special-token text ("<|endoftext|>") is counted as plain text, as the node's tokenizer does.
  const enc = await encoder();
  return (text) => (text ? enc.encode(text).length : 0);
}

/** The text of a message's content: a string, or the `text` of its text parts joined with "\n". */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((p): p is { text: string } => typeof (p as { text?: unknown } | null)?.text === "string")
    .map((p) => p.text)
    .join("\n");
}

/** Tokens of one (well-formed) example: 3 + its text per message, plus each tool call's name and arguments. */
export function exampleTokens(example: Example, count: Tokenizer): number {
  let tokens = 0;
  for (const m of example.messages) {
    tokens += PER_MESSAGE + count(contentText(m.content));
    for (const call of m.tool_calls ?? []) tokens += count(call.function.name + call.function.arguments);
    if (m.function_call) tokens += count(m.function_call.name + m.function_call.arguments);
  }
  return tokens;
}

/**
 * Reads a whole fine-tuning file: how many examples it has, the tokens of one pass over them, and
 * its problems, each naming its line (`message` is the whole sentence, "Line 7: ..."; a problem of
 * the file as a whole has line 0). `minExamples` is 10 for a training file; a validation file may
 * be shorter.
 */
export async function readTrainingFile(text: string, contextLength: number, minExamples = MIN_TRAINING_EXAMPLES): Promise<TrainingFileReport> {
  const count = await tokenizer();
  const errors: FileError[] = [];
  const fail = (line: number, reason: string) => {
    if (errors.length < MAX_ERRORS) errors.push({ line, message: line ? `Line ${line}: ${reason}` : reason });
  };
  let examples = 0;
  let tokensPerEpoch = 0;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (!raw) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      fail(i + 1, "is not valid JSON");
      continue;
    }
    const checked = checkExample(parsed);
    if (!checked.ok) {
      fail(i + 1, checked.reason);
      continue;
    }
    const tokens = exampleTokens(checked.example, count);
    if (tokens > contextLength) {
      fail(i + 1, `the example has ${tokens} tokens, more than the model's context of ${contextLength}`);
      continue;
    }
    examples += 1;
    tokensPerEpoch += tokens;
  }
  if (!errors.length && examples < minExamples) {
    fail(0, `The file has ${examples} example${examples === 1 ? "" : "s"}; at least ${minExamples} are required.`);
  }
  return { examples, tokensPerEpoch, errors };
}
