// Request validation for the audio and image endpoints: a zod schema per body, and its first
// issue turned into OpenAI's 400 naming the parameter.
import { z } from "zod";
import { ApiError } from "./http";

export function parseRequest<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const param = issue.path.length ? issue.path.map(String).join(".") : "body";
  if (issue.code === "invalid_type" && issue.message.includes("undefined")) {
    throw new ApiError(400, "missing_required_parameter", `Missing required parameter: '${param}'.`, param);
  }
  throw new ApiError(400, "invalid_value", `Invalid value for '${param}': ${issue.message}`, param);
}

/** A multipart field (always a string) read as a number; JSON numbers pass unchanged. */
export const numberField = (schema: z.ZodNumber) =>
  z.preprocess((v) => (typeof v === "string" && v.trim() !== "" && !Number.isNaN(Number(v)) ? Number(v) : v), schema);

export const IMAGE_SIZES = ["256x256", "512x512", "1024x1024", "1536x1024", "1024x1536", "auto"] as const;

/** "1536x1024" as {width, height}; null for "auto". */
export function parseSize(size: string | null | undefined): { width: number; height: number } | null {
  if (!size || size === "auto") return null;
  const [w, h] = size.split("x").map(Number);
  return { width: w!, height: h! };
}
