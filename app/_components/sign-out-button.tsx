"use client";
import { signOut } from "next-auth/react";
import { Button } from "./ui";

export function SignOutButton() {
  return (
    <Button variant="ghost" onClick={() => void signOut({ callbackUrl: "/signin" })}>
      Sign out
    </Button>
  );
}
