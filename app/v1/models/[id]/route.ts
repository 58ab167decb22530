import { v1Route } from "@/server/transport/next/v1-route";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = v1Route({
  GET: ({ caller, params }) => caller.models.get({ id: String(params.id) }),
  DELETE: ({ caller, params }) => caller.models.delete({ id: String(params.id) }),
});
