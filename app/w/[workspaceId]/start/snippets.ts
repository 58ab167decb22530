// The first call, as the snippets of the getting-started page write it: curl, the official
// `openai` SDKs for JavaScript and Python, and the AI SDK, with the gateway's base URL and the key.

export type SnippetLanguage = "curl" | "javascript" | "python" | "ai-sdk";

export const SNIPPET_TABS: Array<{ id: SnippetLanguage; label: string }> = [
  { id: "curl", label: "curl" },
  { id: "javascript", label: "OpenAI SDK (JavaScript)" },
  { id: "python", label: "OpenAI SDK (Python)" },
  { id: "ai-sdk", label: "AI SDK" },
];

export function snippet(language: SnippetLanguage, o: { baseUrl: string; apiKey: string; model: string }): string {
  const ask = "Say hello in five words.";
  switch (language) {
    case "curl":
      return [
        `curl ${o.baseUrl}/chat/completions \\`,
        `  -H "Authorization: Bearer ${o.apiKey}" \\`,
        `  -H "Content-Type: application/json" \\`,
        `  -d '{"model": "${o.model}", "messages": [{"role": "user", "content": "${ask}"}]}'`,
      ].join("\n");
    case "javascript":
      return [
        `// npm install openai`,
        `import OpenAI from "openai";`,
        ``,
        `const client = new OpenAI({ baseURL: "${o.baseUrl}", apiKey: "${o.apiKey}" });`,
        `const completion = await client.chat.completions.create({`,
        `  model: "${o.model}",`,
        `  messages: [{ role: "user", content: "${ask}" }],`,
        `});`,
        `console.log(completion.choices[0].message.content);`,
      ].join("\n");
    case "python":
      return [
        `# pip install openai`,
        `from openai import OpenAI`,
        ``,
        `client = OpenAI(base_url="${o.baseUrl}", api_key="${o.apiKey}")`,
        `completion = client.chat.completions.create(`,
        `    model="${o.model}",`,
        `    messages=[{"role": "user", "content": "${ask}"}],`,
        `)`,
        `print(completion.choices[0].message.content)`,
      ].join("\n");
    case "ai-sdk":
      return [
        `// npm install ai @ai-sdk/openai`,
        `import { createOpenAI } from "@ai-sdk/openai";`,
        `import { generateText } from "ai";`,
        ``,
        `const gateway = createOpenAI({ baseURL: "${o.baseUrl}", apiKey: "${o.apiKey}" });`,
        `const { text } = await generateText({ model: gateway.chat("${o.model}"), prompt: "${ask}" });`,
        `console.log(text);`,
      ].join("\n");
  }
}
