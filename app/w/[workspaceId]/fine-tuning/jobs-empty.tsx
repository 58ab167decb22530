"use client";
// What the Fine-tuning page says before the first job: how to start one with the `openai` SDK.
import { useEffect, useState } from "react";
import { EmptyState } from "@/app/_components/ui";

const EXAMPLE = `{"messages":[{"role":"user","content":"What is the capital of France?"},{"role":"assistant","content":"Paris."}]}`;

export function JobsEmpty({ baseModel }: { baseModel: string | null }) {
  const [origin, setOrigin] = useState("");
  useEffect(() => setOrigin(window.location.origin), []);
  const code = [
    `import fs from "node:fs";`,
    `import OpenAI from "openai";`,
    ``,
    `const openai = new OpenAI({ baseURL: "${origin || "https://GATEWAY"}/v1", apiKey: process.env.API_KEY });`,
    `const file = await openai.files.create({ file: fs.createReadStream("train.jsonl"), purpose: "fine-tune" });`,
    `const job = await openai.fineTuning.jobs.create({ model: "${baseModel ?? "BASE_MODEL"}", training_file: file.id, suffix: "mine" });`,
    `console.log(job.id, job.status);`,
  ].join("\n");
  return (
    <EmptyState title="No fine-tuning jobs yet.">
      <p>
        Upload a JSONL file of chat examples (at least 10) with the purpose <code>fine-tune</code>, then create a job on a base model that can be tuned. Training is
        held from the balance when the job starts and billed on the tokens trained; the tuned model is this workspace&apos;s alone. A line of the file:
      </p>
      <pre className="mt-2 overflow-x-auto rounded-md bg-slate-100 p-2 text-left text-xs text-slate-700">
        <code>{EXAMPLE}</code>
      </pre>
      <pre data-testid="fine-tuning-snippet" className="mt-3 overflow-x-auto rounded-md bg-slate-900 p-3 text-left text-xs text-slate-100">
        <code>{code}</code>
      </pre>
    </EmptyState>
  );
}
