// Compares the gateway's OpenAPI document with OpenAI's published one (scripts/lib/openapi-compare.ts
// says how) and prints what differs. Differences that are deliberate are listed in DELIBERATE,
// each with its reason; any other one makes the script exit 1.
//
//   node --import tsx scripts/check-openai-schema.ts <openapi.yaml|openapi.json> [--verbose]
//
// OpenAI's document is read from the path given, never stored in this repository. YAML needs a
// YAML parser in node_modules (`yaml` or `js-yaml`); the JSON form needs nothing.
import { readFileSync } from "node:fs";
import { openApiDocument } from "../server/contract/openapi/index";
import { operations } from "../server/contract";
import { compareDocuments, type Doc, type Finding, type Kind } from "./lib/openapi-compare";

/** Differences kept on purpose: `at` is a field path (a trailing `*` matches what starts with it). */
const DELIBERATE: { at: string; kind: Kind; why: string }[] = [
  // Videos: the API reference (part 2.2) defines the job object, not OpenAI's `video`.
  { at: "VideoResource.object", kind: "enum", why: "the API reference (2.2) mandates `video.generation.job`" },
  { at: "VideoResource.seconds", kind: "type", why: "an integer: the API reference (2.2) types the create field `seconds` as an integer, and the job echoes it" },
  { at: "VideoResource.size", kind: "enum", why: "sizes are the model's own (`video.supported_sizes` of the model, API reference 8.1), not OpenAI's four" },
  { at: "VideoResource.error", kind: "optional", why: "the API reference (2.2) has `error` present only when failed (an object, never null)" },
  { at: "VideoResource.remixed_from_video_id", kind: "missing", why: "the gateway has no remixes" },
  { at: "VideoResource.progress", kind: "type", why: "a number from 0 to 100 that may have a fraction (the node's progress)" },
  { at: "CreateVideoJsonBody (application/json).model", kind: "request-required", why: "the API reference (2.2) requires `model`" },
  { at: "CreateVideoMultipartBody (multipart/form-data).model", kind: "request-required", why: "the API reference (2.2) requires `model`" },
  { at: "CreateVideoMultipartBody (multipart/form-data).input_reference", kind: "request-type", why: "a reference image is uploaded as a file; the gateway stores no files to refer to" },
  // Lists: an empty list has no first or last item.
  { at: "ResponseItemList.first_id", kind: "nullable", why: "null when the list is empty (OpenAI's own video list says so too)" },
  { at: "ResponseItemList.last_id", kind: "nullable", why: "null when the list is empty" },
  // Responses.
  { at: "Response.error.code", kind: "enum", why: "the gateway names failures of its own (`background_interrupted`, `timeout`, docs/API.md) and passes on the node's codes" },
  { at: "CreateResponse (application/json).model", kind: "request-required", why: "the API reference (2.4) requires `model` (the gateway has no stored prompts to take one from)" },
  { at: "CreateResponse (application/json).input", kind: "request-required", why: "the gateway has no stored prompts: the input is the turn (a named conversation's items come before it)" },
  { at: "CreateResponse (application/json).tool_choice", kind: "variant", why: "function tools only: OpenAI's hosted tools (and choices of them) run on OpenAI's side" },
  { at: "CreateResponse (application/json).tool_choice", kind: "request-type", why: "function tools only (OpenAI's hosted tool choices are objects of other types)" },
  { at: "CreateChatCompletionRequest (application/json).tool_choice", kind: "variant", why: "function tools only: `allowed_tools` and custom tools are not passed to nodes" },
  // Fine-tuning.
  { at: "FineTuningJob.status", kind: "enum", why: "`paused`: OpenAI's own pause route answers a paused job (its example), though the status enum leaves it out" },
  // Media.
  { at: "Embedding.embedding", kind: "type", why: "with `encoding_format: base64` the embedding is a base64 string, as OpenAI answers (its document types only the float form)" },
  { at: "CreateSpeechRequest (application/json).voice", kind: "request-type", why: "voices are named; OpenAI's custom voice objects (`{id}`) are its own" },
  { at: "CreateImageEditRequest (multipart/form-data).image", kind: "request-type", why: "one image per edit" },
];

async function loadDocument(file: string): Promise<Doc> {
  const text = readFileSync(file, "utf8");
  if (/^\s*\{/.test(text)) return JSON.parse(text) as Doc;
  for (const name of ["yaml", "js-yaml"]) {
    try {
      const mod = (await import(name)) as { parse?: (t: string, o?: unknown) => unknown; load?: (t: string) => unknown };
      if (mod.parse) return mod.parse(text, { maxAliasCount: -1 }) as Doc;
      if (mod.load) return mod.load(text) as Doc;
    } catch {
      // not installed: try the next parser
    }
  }
  throw new Error(`${file} is YAML and no YAML parser is installed: give the JSON form of the document`);
}

function allowed(f: { kind: Kind; at: string }) {
  return DELIBERATE.find((d) => d.kind === f.kind && (d.at.endsWith("*") ? f.at.startsWith(d.at.slice(0, -1)) : f.at === d.at));
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const verbose = args.includes("--verbose");
  const file = args.find((a) => !a.startsWith("--"));
  if (!file) {
    console.error("usage: node --import tsx scripts/check-openai-schema.ts <openai openapi.yaml|openapi.json> [--verbose]");
    return 2;
  }
  const theirs = await loadDocument(file);
  const ours = JSON.parse(JSON.stringify(openApiDocument(operations))) as Doc;
  const { matched, findings: all } = compareDocuments(ours, theirs);
  const open = all.filter((f) => !f.informative && !allowed(f));
  const deliberate = all.filter((f) => !f.informative && allowed(f));
  const informative = all.filter((f) => f.informative && !allowed(f));
  const line = (f: Finding) => `  [${f.kind}] ${f.at}: ${f.text}${verbose ? `\n      in ${[...f.where].join(", ")}` : ""}`;

  console.log(`OpenAI's document: ${String(theirs.info?.title ?? "?")} ${String(theirs.info?.version ?? "?")} (${file})`);
  console.log(`Operations compared (${matched.length}):\n${matched.map((n) => `  ${n}`).join("\n")}\n`);
  console.log(`Differences (${open.length}):`);
  console.log(open.length ? open.map(line).join("\n") : "  none");
  console.log(`\nDeliberate differences (${deliberate.length}):`);
  for (const f of deliberate) console.log(`${line(f)}\n      deliberate: ${allowed(f)!.why}`);
  if (verbose) {
    console.log(`\nFields of ours that OpenAI's document does not name (${informative.length}):`);
    console.log(informative.map(line).join("\n"));
  } else console.log(`\n${informative.length} fields of ours that OpenAI's document does not name (--verbose lists them).`);
  const unused = DELIBERATE.filter((d) => !all.some((f) => f.kind === d.kind && allowed(f) === d));
  if (unused.length) console.log(`\nDeliberate differences no longer found (remove them from the list):\n${unused.map((d) => `  [${d.kind}] ${d.at}`).join("\n")}`);
  return open.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(2);
  },
);
