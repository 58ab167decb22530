import { withOrigin } from "@/server/http/forms";
import { v1Route } from "@/server/http/v1-route";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = v1Route({
  POST: async ({ caller, json, req }) => caller.images.generate(withOrigin(await json(), req) as never),
});
