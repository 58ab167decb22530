import type { ReactNode } from "react";
import "./globals.css";
import { HydrationMark } from "./_components/hydration-mark";

export const metadata = { title: "Model Gateway", description: "OpenAI-compatible multi-modal model gateway" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 font-sans text-slate-900 antialiased">
        <HydrationMark />
        {children}
      </body>
    </html>
  );
}
