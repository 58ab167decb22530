import { audioForm } from "@/server/http/forms";
import { v1Route } from "@/server/http/v1-route";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = v1Route({
  POST: async ({ caller, req }) => caller.audio.translate((await audioForm(req)) as never),
});
