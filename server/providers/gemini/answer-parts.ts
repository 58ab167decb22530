// A candidate's parts -> what OpenAI's message holds: the text, the thoughts (summaries Gemini
// gives with `includeThoughts`) as reasoning, and the function calls as tool calls. A thought
// signature on a text part is dropped (only a function call's must come back).
import { toolCallId } from "./tool-call-ids";
import type { Part } from "./types";

export type ToolCall = { id: string; type: "function"; function: { name: string; arguments: string } };
export type AnswerParts = { text: string; reasoning: string; toolCalls: ToolCall[] };

/** `firstCall`: how many function calls this candidate made before these parts (a stream's earlier events). */
export function answerParts(parts: Part[] | undefined, firstCall = 0): AnswerParts {
  const answer: AnswerParts = { text: "", reasoning: "", toolCalls: [] };
  for (const part of parts ?? []) {
    if (part.functionCall) {
      const { id, name, args } = part.functionCall;
      answer.toolCalls.push({
        id: toolCallId(id, firstCall + answer.toolCalls.length, part.thoughtSignature),
        type: "function",
        function: { name: name ?? "", arguments: JSON.stringify(args ?? {}) },
      });
    } else if (typeof part.text === "string") {
      if (part.thought) answer.reasoning += part.text;
      else answer.text += part.text;
    }
  }
  return answer;
}
