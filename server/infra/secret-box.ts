// Encryption at rest for upstream node keys: AES-256-GCM under GATEWAY_SECRET.
// Without GATEWAY_SECRET a random secret is generated once into the data directory, which suits
// a single machine; several instances on one database must share one GATEWAY_SECRET.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { dataDir } from "./db/data-dir";
import { env } from "./env";

let cachedKey: Buffer | undefined;

function keyFromSecret(secret: string): Buffer {
  if (/^[0-9a-f]{64}$/i.test(secret)) return Buffer.from(secret, "hex");
  const b64 = Buffer.from(secret, "base64");
  if (b64.length === 32) return b64;
  return createHash("sha256").update(secret).digest();
}

/** The secret used when GATEWAY_SECRET is unset, created on first use in the data dir. */
export function localSecret(dir = dataDir()): string {
  const file = path.join(dir, "gateway-secret");
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, randomBytes(32).toString("hex"), { mode: 0o600, flag: "wx" });
  }
  return readFileSync(file, "utf8").trim();
}

/** Sets this process's secret explicitly (the processes that start a gateway pass it on). */
export function useSecret(secret: string): void {
  cachedKey = keyFromSecret(secret);
}

function key(): Buffer {
  cachedKey ??= keyFromSecret(env.GATEWAY_SECRET ?? localSecret());
  return cachedKey;
}

export function seal(plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key(), iv);
  const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64"), cipher.getAuthTag().toString("base64"), ct.toString("base64")].join(":");
}

export function open(sealed: string): string {
  const [version, iv, tag, ct] = sealed.split(":");
  if (version !== "v1" || !iv || !tag || !ct) throw new Error("unknown sealed secret format");
  const decipher = createDecipheriv("aes-256-gcm", key(), Buffer.from(iv, "base64"));
  decipher.setAuthTag(Buffer.from(tag, "base64"));
  return Buffer.concat([decipher.update(Buffer.from(ct, "base64")), decipher.final()]).toString("utf8");
}

/** A secret for another purpose (e.g. signing session tokens), derived from the gateway's secret. */
export function derivedSecret(purpose: string): string {
  return createHash("sha256").update(key()).update(`\0${purpose}`).digest("hex");
}
