// The one Prisma client of a process, on the pg driver adapter. Created on first use so that
// scripts can point it at the embedded database before any query runs.
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../../generated/prisma/client";
import { env } from "../env";

export type Db = PrismaClient;
export type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];

/** How long an idle database connection is kept open (this pool and the write pool). */
export const IDLE_CONNECTION_MS = 5 * 60_000;

const state = globalThis as unknown as { gatewayDbUrl?: string; gatewayDb?: PrismaClient };

/** Points this process at a database (used by scripts that start the embedded one). */
export function useDatabase(url: string): void {
  if (state.gatewayDb && state.gatewayDbUrl !== url) throw new Error("database already in use by this process");
  state.gatewayDbUrl = url;
}

export function databaseUrl(): string {
  const url = state.gatewayDbUrl ?? env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set (npm start and npm run cli set it for the embedded database)");
  return url;
}

export function createDb(url = databaseUrl()): PrismaClient {
  return new PrismaClient({
    // Idle connections are kept for minutes, not pg's 10 s: after a quiet moment, the first calls
    // (a key read again once its cache entry is past its age bound) would otherwise wait for new
    // connections (TCP, authentication, a backend started): 100-200 ms on a loaded host.
    adapter: new PrismaPg({ connectionString: url, max: 10, idleTimeoutMillis: IDLE_CONNECTION_MS }),
    // Prisma's defaults (2 s to get a connection, 5 s per transaction) turn a busy moment (a burst
    // of video creates queued on one key's row lock, a loaded host) into 500s; wait longer instead.
    transactionOptions: { maxWait: 10_000, timeout: 20_000 },
  });
}

function client(): PrismaClient {
  if (!state.gatewayDb) {
    state.gatewayDbUrl = databaseUrl();
    state.gatewayDb = createDb(state.gatewayDbUrl);
  }
  return state.gatewayDb;
}

export const db: PrismaClient = new Proxy({} as PrismaClient, {
  get(_target, prop) {
    const c = client();
    const value = Reflect.get(c, prop, c) as unknown;
    return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(c) : value;
  },
});

export async function disconnectDb(): Promise<void> {
  await state.gatewayDb?.$disconnect();
  state.gatewayDb = undefined;
}
