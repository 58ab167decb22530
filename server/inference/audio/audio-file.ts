// Checks an uploaded audio file: an accepted type (by its name or content type, then by what
// ffprobe finds in it) and decodable. Every refusal is a 400 naming `file`, never a 500.
import { errors } from "../../kernel/errors";
import { formatMoney, money } from "../../kernel/money";
import type { Upload } from "../../infra/storage/upload";
import { probeAudio } from "./probe";

export const AUDIO_EXTENSIONS = ["mp3", "mp4", "mpeg", "mpga", "m4a", "wav", "webm"];
const MIME_TYPES = ["audio/mpeg", "audio/mp3", "audio/mpga", "audio/mp4", "audio/m4a", "audio/x-m4a", "audio/wav", "audio/x-wav", "audio/wave", "audio/webm", "video/mp4", "video/mpeg", "video/webm"];
/** ffprobe's names for the containers of those types. */
const CONTAINERS = new Set(["mp3", "mov", "mp4", "m4a", "wav", "matroska", "webm", "mpeg"]);

const wrongType = () =>
  errors.invalidRequest(`Invalid file format. Supported formats: ${AUDIO_EXTENSIONS.map((e) => `'${e}'`).join(", ")}.`, "file", "invalid_file_format");

/** The decoded duration in seconds (a decimal string), or a 400 naming `file`. */
export async function decodedDuration(file: Upload): Promise<string> {
  const ext = /\.([A-Za-z0-9]+)$/.exec(file.filename)?.[1]?.toLowerCase();
  const typeOk = ext ? AUDIO_EXTENSIONS.includes(ext) : MIME_TYPES.includes(file.contentType.split(";")[0]!.trim().toLowerCase());
  if (!typeOk) throw wrongType();
  if (file.data.byteLength === 0) throw errors.invalidRequest("The audio file is empty.", "file", "invalid_file");
  const probe = await probeAudio(file.data);
  if (!probe) throw errors.invalidRequest("The audio file could not be decoded. It may be corrupted or not audio.", "file", "invalid_file");
  if (!probe.formats.some((f) => CONTAINERS.has(f))) throw wrongType();
  return formatMoney(money(probe.seconds));
}
