import { v1Route } from "@/server/transport/next/v1-route";

// Signed, expiring image links: the signature is the credential, so no API key is asked for.
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = v1Route(
  {
    GET: ({ caller, params, req }) => {
      const query = new URL(req.url).searchParams;
      return caller.images.file({ name: String(params.name), expires: query.get("expires") ?? "0", signature: query.get("signature") ?? "" });
    },
  },
  { auth: "none" },
);
