// Media fixtures for the audio and image tests: real WAV audio and real images, made in memory.
import sharp from "sharp";
import { db } from "../server/infra/db/client";
import { formatMoney } from "../server/kernel/money";

/** A real PCM WAV file: 16-bit mono at 8 kHz, a 440 Hz tone of exactly `seconds`. */
export function wav(seconds: number, rate = 8000): Buffer {
  const samples = Math.round(seconds * rate);
  const buf = Buffer.alloc(44 + samples * 2);
  buf.write("RIFF", 0, "latin1");
  buf.writeUInt32LE(36 + samples * 2, 4);
  buf.write("WAVEfmt ", 8, "latin1");
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(1, 20);
  buf.writeUInt16LE(1, 22);
  buf.writeUInt32LE(rate, 24);
  buf.writeUInt32LE(rate * 2, 28);
  buf.writeUInt16LE(2, 32);
  buf.writeUInt16LE(16, 34);
  buf.write("data", 36, "latin1");
  buf.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++) buf.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), 44 + i * 2);
  return buf;
}

export function png(width = 64, height = 64, color = "#ff8800"): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: color } }).png().toBuffer();
}

export async function usageEvent(requestId: string | null) {
  return db.usageEvent.findUnique({ where: { id: requestId ?? "" } });
}

export async function balanceOf(workspaceId: string): Promise<string> {
  const w = await db.workspace.findUniqueOrThrow({ where: { id: workspaceId }, select: { balance: true } });
  return formatMoney(w.balance.toString());
}
