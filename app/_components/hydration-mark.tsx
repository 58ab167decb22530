"use client";
// Marks <html data-hydrated> once React has taken over the page, so a script (or a browser test)
// can tell a form that only looks ready from one whose handlers are attached.
import { useEffect } from "react";

export function HydrationMark() {
  useEffect(() => {
    document.documentElement.dataset.hydrated = "true";
  }, []);
  return null;
}
