import { currentSigner, jwks, rotateSigningKey } from "../../server/identity/sessions/signing-keys";
import { parse, type Command } from "./args";
import { table } from "./output";

const iso = (unix: number) => new Date(unix * 1000).toISOString();

export const signingKeyCommands: Record<string, Command> = {
  "signing-key rotate": (argv) => {
    const { values } = parse(argv, {}, []);
    return async () => {
      const rotated = await rotateSigningKey();
      const lines = [`New signing key ${rotated.kid}: it signs every session token from now on.`];
      for (const r of rotated.retired) lines.push(`Retired ${r.kid}: published until ${iso(r.published_until)} (when the last token alive now expires).`);
      if (!rotated.retired.length) lines.push("No key was signing before.");
      return { json: rotated, text: lines.join("\n"), asJson: values.json };
    };
  },
  "signing-key list": (argv) => {
    const { values } = parse(argv, {}, []);
    return async () => {
      const set = await jwks(); // makes the first key on a fresh install
      const signer = await currentSigner();
      const rows = set.keys.map((k) => ({ kid: k.kid ?? null, alg: k.alg ?? null, curve: k.crv ?? null, signing: k.kid === signer.kid }));
      return { json: set, text: table(rows), asJson: values.json };
    };
  },
};
