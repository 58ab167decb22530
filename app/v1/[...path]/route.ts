import { v1Fallback } from "@/server/transport/next/v1-fallback";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = v1Fallback;
