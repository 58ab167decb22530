// Learnable fine-tuning files for tests: chat examples whose answers follow from their prompts
// (a colour, an object and a number each), one JSON line per example.
const COLORS = ["red", "blue", "green", "yellow", "purple", "orange", "black", "white", "pink", "brown"];
const THINGS = ["car", "house", "cat", "dog", "boat", "tree", "lamp", "chair", "book", "cup"];

export type ChatExample = { messages: { role: string; content: string; weight?: number }[] };

/** Example `i`: a system prompt, a question and the answer to learn. */
export function colourExample(i: number): ChatExample {
  const colour = COLORS[i % 10]!;
  const thing = THINGS[Math.floor(i / 10) % 10]!;
  return {
    messages: [
      { role: "system", content: "You answer with the colour code." },
      { role: "user", content: `What is the code of the ${colour} ${thing} number ${i}?` },
      { role: "assistant", content: `The ${thing} is ${colour}; its code is ${colour.toUpperCase()}-${(i * 7) % 97}.` },
    ],
  };
}

/** `count` examples starting at `from`, as JSONL text. */
export function colourFile(count: number, from = 0): string {
  return Array.from({ length: count }, (_, k) => JSON.stringify(colourExample(from + k))).join("\n") + "\n";
}
