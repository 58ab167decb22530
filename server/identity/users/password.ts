// Passwords are hashed with Argon2id (memory-hard: 19 MiB, 2 passes, OWASP's baseline), so a
// stolen database costs an attacker memory as well as time per guess.

// Loaded on first use: the API's data plane never hashes a password.
const argon2 = () => import("@node-rs/argon2");

const OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export async function hashPassword(password: string): Promise<string> {
  return (await argon2()).hash(password, OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await (await argon2()).verify(passwordHash, password);
  } catch {
    return false; // a malformed stored hash never signs anyone in
  }
}

/** Verified against when no user matches, so an unknown email takes as long as a wrong password. */
let dummy: Promise<string> | undefined;
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword("not-a-real-password");
  return dummy;
}
