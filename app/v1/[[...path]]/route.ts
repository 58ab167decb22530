// Every /v1 path: the contract's dispatcher (server/transport/dispatch.ts) answers.
import { v1Handlers } from "@/server/transport/next/v1-handler";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = v1Handlers;
