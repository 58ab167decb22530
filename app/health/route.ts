import { v1Route } from "@/server/transport/next/v1-route";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = v1Route(
  { GET: ({ caller }) => caller.health.check() },
  { auth: "none" },
);
