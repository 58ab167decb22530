"use client";
// (filled by the sso work)
export function SsoSettings() {
  return null;
}
