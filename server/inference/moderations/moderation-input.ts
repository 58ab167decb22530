// What a moderation request holds, as the gateway bills and checks it: the texts (each a string
// of the list, or a text part), the images, and how many results the node must answer.
import type { ModerationRequest } from "./schema";

export type ModerationInput = {
  texts: string[];
  images: number;
  /** One per string of a list; a single string or a list of parts is one. */
  results: number;
};

export function moderationInput(input: ModerationRequest["input"]): ModerationInput {
  if (typeof input === "string") return { texts: [input], images: 0, results: 1 };
  if (input.every((item) => typeof item === "string")) return { texts: input as string[], images: 0, results: input.length };
  const texts: string[] = [];
  let images = 0;
  for (const part of input) {
    if (typeof part === "string") continue; // the schema allows no mix; a string here cannot occur
    if (part.type === "text") texts.push(part.text);
    else images++;
  }
  return { texts, images, results: 1 };
}
