// Signing keys for the test identity providers, made at test time (openssl): a self-signed
// certificate and its private key; a second pair signs the forged answers.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export type KeyPair = { key: string; cert: string };

export function newKeyPair(cn = "test-idp"): KeyPair {
  const dir = mkdtempSync(path.join(tmpdir(), "idp-keys-"));
  try {
    const key = path.join(dir, "key.pem");
    const cert = path.join(dir, "cert.pem");
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", `/CN=${cn}`, "-days", "2", "-keyout", key, "-out", cert], { stdio: "ignore" });
    return { key: readFileSync(key, "utf8"), cert: readFileSync(cert, "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
