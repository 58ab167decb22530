// Deterministic image rendering: an SVG composition (a gradient, translucent shapes, the prompt
// written in a band) whose colours and layout are seeded by a hash of the prompt and the image's
// index, rasterised by sharp (librsvg). The same prompt and index always give the same pixels.
import sharp, { type Sharp } from "sharp";
import { seededRng } from "./random";

export type OutputFormat = "png" | "jpeg" | "webp";

/** XML text: markup characters escaped, characters XML forbids (controls, lone surrogates) dropped. */
const escape = (s: string) =>
  s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "")
    .replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Up to `maxLines` lines of at most `width` characters, cut at spaces, "…" when cut short. */
function wrap(text: string, width: number, maxLines: number): string[] {
  const words = text.replace(/\s+/g, " ").trim().split(" ");
  const lines: string[] = [];
  let line = "";
  for (const word of words) {
    const piece = word.length > width ? `${word.slice(0, width - 1)}…` : word;
    if (line && line.length + 1 + piece.length > width) {
      lines.push(line);
      line = piece;
      if (lines.length === maxLines) break;
    } else line = line ? `${line} ${piece}` : piece;
  }
  if (lines.length < maxLines && line) lines.push(line);
  const used = lines.join(" ").length;
  if (used < text.replace(/\s+/g, " ").trim().length && lines.length) lines[lines.length - 1] = `${lines[lines.length - 1]!.slice(0, width - 1)}…`;
  return lines;
}

function shape(rng: ReturnType<typeof seededRng>, w: number, h: number, baseHue: number): string {
  const hue = (baseHue + rng.int(0, 240)) % 360;
  const fill = `hsl(${hue},${rng.int(45, 90)}%,${rng.int(35, 70)}%)`;
  const opacity = (0.35 + rng.next() * 0.5).toFixed(2);
  const x = rng.int(0, w);
  const y = rng.int(0, h);
  const r = rng.int(Math.round(Math.min(w, h) / 16), Math.round(Math.min(w, h) / 3));
  const style = `fill="${fill}" fill-opacity="${opacity}"`;
  switch (rng.int(0, 3)) {
    case 0:
      return `<circle cx="${x}" cy="${y}" r="${r}" ${style}/>`;
    case 1:
      return `<rect x="${x - r}" y="${y - r / 2}" width="${2 * r}" height="${r}" rx="${rng.int(0, r / 4)}" transform="rotate(${rng.int(0, 179)} ${x} ${y})" ${style}/>`;
    case 2:
      return `<ellipse cx="${x}" cy="${y}" rx="${r}" ry="${Math.round(r * (0.3 + rng.next() * 0.6))}" ${style}/>`;
    default: {
      const pts = [0, 1, 2].map((k) => {
        const a = rng.next() * Math.PI * 2 + (k * Math.PI * 2) / 3;
        return `${Math.round(x + Math.cos(a) * r)},${Math.round(y + Math.sin(a) * r)}`;
      });
      return `<polygon points="${pts.join(" ")}" ${style}/>`;
    }
  }
}

/** The SVG source of image `index` for `prompt`; `salt` varies the seed (e.g. per edited image). */
export function imageSvg(prompt: string, index: number, width: number, height: number, transparent = false, salt = ""): string {
  const rng = seededRng(`image\0${prompt}\0${salt}\0${index}`);
  const hue = rng.int(0, 359);
  const hue2 = (hue + rng.int(60, 180)) % 360;
  const angle = rng.int(0, 359);
  const shapes = Array.from({ length: rng.int(6, 12) }, () => shape(rng, width, height, hue)).join("");
  const font = Math.max(12, Math.round(Math.min(width, height) / 22));
  const lines = wrap(prompt, Math.max(8, Math.floor((width * 0.9) / (font * 0.56))), 3);
  const band = (lines.length + 0.8) * font * 1.25;
  const text = lines
    .map((l, i) => `<text x="${width / 2}" y="${height - band + font * 1.25 * (i + 1)}" font-size="${font}" text-anchor="middle">${escape(l)}</text>`)
    .join("");
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">
<defs><linearGradient id="g" gradientTransform="rotate(${angle} 0.5 0.5)">
<stop offset="0" stop-color="hsl(${hue},70%,${rng.int(25, 45)}%)"/><stop offset="1" stop-color="hsl(${hue2},75%,${rng.int(55, 75)}%)"/></linearGradient></defs>
${transparent ? "" : `<rect width="100%" height="100%" fill="url(#g)"/>`}${shapes}
<rect x="0" y="${height - band}" width="${width}" height="${band}" fill="#000" fill-opacity="0.45"/>
<g font-family="DejaVu Sans, Liberation Sans, Arial, sans-serif" fill="#fff">${text}</g></svg>`;
}

/** Image `index` for `prompt` as raw RGBA pixels. */
export async function renderRaw(prompt: string, index: number, width: number, height: number, transparent = false, salt = ""): Promise<Buffer> {
  return sharp(Buffer.from(imageSvg(prompt, index, width, height, transparent, salt)))
    .resize(width, height, { fit: "fill" })
    .ensureAlpha()
    .raw()
    .toBuffer();
}

/** Encodes `image` in the output format; `compression` (0-100) applies to jpeg and webp. */
export function encodeImage(image: Sharp, format: OutputFormat, compression?: number): Promise<Buffer> {
  const quality = compression === undefined ? undefined : Math.max(1, compression);
  if (format === "jpeg") return image.flatten({ background: "#ffffff" }).jpeg({ quality: quality ?? 85 }).toBuffer();
  if (format === "webp") return image.webp({ quality: quality ?? 85 }).toBuffer();
  return image.png().toBuffer();
}

/** Raw RGBA pixels as a sharp image, ready to resize or encode. */
export const fromRaw = (data: Buffer, width: number, height: number) => sharp(data, { raw: { width, height, channels: 4 } });
