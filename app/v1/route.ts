import { v1Fallback } from "@/server/http/v1-fallback";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = v1Fallback;
