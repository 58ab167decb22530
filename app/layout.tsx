import type { ReactNode } from "react";

export const metadata = { title: "Model Gateway", description: "OpenAI-compatible multi-modal model gateway" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
