import type { IncomingMessage } from "node:http";

export function clientIp(req: IncomingMessage, trustProxy: boolean): string;
