// What the ledger tells the rest of the instance after it commits: a key's new running `spent`,
// so the key cache (identity) enforces spend limits at once without the ledger importing it.
type KeySpentListener = (keyHash: string, spent: string) => void;

const listeners = new Set<KeySpentListener>();

export function onKeySpent(listener: KeySpentListener): void {
  listeners.add(listener);
}

export function noteKeySpent(keyHash: string, spent: string): void {
  for (const l of listeners) l(keyHash, spent);
}
