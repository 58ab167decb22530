"use client";
// (filled by the scim work)
export function ScimSettings() {
  return null;
}
