// A JSON answer's text, for a stage that keeps the answer once it went out (the response cache
// stores a miss's answer): the transport serialises every JSON answer once, and an answer asked
// for here keeps that text, so that it is not serialised a second time. Nothing else is kept: an
// answer nobody asked for costs one lookup in an empty map.
const wanted = new WeakMap<object, string | null>();

/** Asks for the text `answer` will go out as. */
export function wantText(answer: object): void {
  wanted.set(answer, null);
}

/** The answer's JSON text (JSON.stringify), kept for whoever asked for it. */
export function answerText(answer: unknown): string {
  const text = JSON.stringify(answer);
  if (typeof answer === "object" && answer !== null && wanted.has(answer)) wanted.set(answer, text);
  return text;
}

/** The text `answer` went out as, if it went out since it was asked for; forgotten once read. */
export function sentText(answer: object): string | undefined {
  const text = wanted.get(answer);
  wanted.delete(answer);
  return text ?? undefined;
}
