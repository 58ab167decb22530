"use client";
// Step 2 of getting started: a snippet to paste, in the client of the user's choice, with the
// absolute base URL and (once created here) the key filled in, and a copy button.
import { useState } from "react";
import { Button, Card } from "@/app/_components/ui";
import { copyMessage, useCopy } from "@/app/_components/use-copy";
import { snippet, SNIPPET_TABS, type SnippetLanguage } from "./snippets";

export function SnippetCard({ baseUrl, apiKey, model }: { baseUrl: string; apiKey: string; model: string }) {
  const [language, setLanguage] = useState<SnippetLanguage>("curl");
  const { copied, copy, reset } = useCopy();
  const code = snippet(language, { baseUrl, apiKey, model });

  return (
    <Card title="2. Copy a snippet">
      <p className="text-sm text-slate-600">
        Base URL: <code data-testid="base-url" className="rounded bg-slate-100 px-1 font-mono">{baseUrl}</code>. Any OpenAI-compatible client works with it.
      </p>
      <div role="tablist" aria-label="Client" className="mt-3 flex flex-wrap gap-1">
        {SNIPPET_TABS.map((t) => (
          <button
            key={t.id}
            role="tab"
            type="button"
            aria-selected={language === t.id}
            onClick={() => {
              setLanguage(t.id);
              reset();
            }}
            className={`rounded-md px-3 py-1.5 text-sm ${language === t.id ? "bg-indigo-600 text-white" : "bg-slate-100 text-slate-700 hover:bg-slate-200"}`}
          >
            {t.label}
          </button>
        ))}
      </div>
      <pre data-testid="snippet" className="mt-3 max-w-full overflow-x-auto rounded-md bg-slate-900 p-4 text-xs text-slate-100">
        {code}
      </pre>
      <div className="mt-2 flex items-center gap-3">
        <Button variant="secondary" onClick={() => void copy(code)}>
          Copy
        </Button>
        <span aria-live="polite" className="text-xs text-slate-600">
          {copyMessage(copied, "snippet")}
        </span>
      </div>
    </Card>
  );
}
