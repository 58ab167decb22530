import { v1Route } from "@/server/transport/next/v1-route";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = v1Route({
  POST: async ({ caller, json }) => caller.embeddings.create((await json()) as never),
});
