"use client";
// What the Batches page says before the first batch: how to make one with the API.
import { useEffect, useState } from "react";
import { EmptyState } from "@/app/_components/ui";

const LINE = `{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{"model":"MODEL_ID","messages":[{"role":"user","content":"Hi"}]}}`;

export function BatchesEmpty() {
  const [origin, setOrigin] = useState("");
  useEffect(() => setOrigin(window.location.origin), []);
  const base = `${origin || "https://GATEWAY"}/v1`;
  const code = [
    `curl ${base}/files -H "Authorization: Bearer $API_KEY" -F purpose=batch -F file=@requests.jsonl`,
    `curl ${base}/batches -H "Authorization: Bearer $API_KEY" -H "Content-Type: application/json" \\`,
    `  -d '{"input_file_id":"file-…","endpoint":"/v1/chat/completions","completion_window":"24h"}'`,
  ].join("\n");
  return (
    <EmptyState title="No batches yet.">
      <p>
        Upload a JSONL file of requests with the purpose <code>batch</code>, then create a batch from it with POST /v1/batches. Its lines run in the background at
        the models&apos; batch price; the output file appears here when it is done. A line of the file:
      </p>
      <pre className="mt-2 overflow-x-auto rounded-md bg-slate-100 p-2 text-left text-xs text-slate-700">
        <code>{LINE}</code>
      </pre>
      <pre className="mt-3 overflow-x-auto rounded-md bg-slate-900 p-3 text-left text-xs text-slate-100">
        <code>{code}</code>
      </pre>
    </EmptyState>
  );
}
