// Workspace balances, cached per instance so the 402 check costs no database round trip on a
// warm workspace. The meter updates the cache with every balance it commits; otherwise an
// entry is re-read after BALANCE_TTL_MS.
//
// Overdraft bound: a request is admitted while the cached balance is above zero, and is charged
// after it ran. So a workspace can go below zero by at most the cost of the calls admitted
// concurrently (on all instances) plus those admitted by an instance whose cache is up to
// BALANCE_TTL_MS stale. Credits added reach other instances within BALANCE_TTL_MS.
import { LRUCache } from "lru-cache";
import { db } from "../infra/db/client";
import { errors } from "../kernel/errors";
import { money } from "../kernel/money";

const BALANCE_TTL_MS = 1000;
const cache = new LRUCache<string, { balance: string; at: number }>({ max: 100_000 });

export function noteBalance(workspaceId: string, balance: string): void {
  cache.set(workspaceId, { balance, at: Date.now() });
}

async function balanceOf(workspaceId: string): Promise<string> {
  const hit = cache.get(workspaceId);
  if (hit && Date.now() - hit.at < BALANCE_TTL_MS) return hit.balance;
  const row = await db.workspace.findUnique({ where: { id: workspaceId }, select: { balance: true } });
  const balance = row ? row.balance.toString() : "0";
  noteBalance(workspaceId, balance);
  return balance;
}

/** 402 insufficient_quota when the workspace has nothing left; called before any node is. */
export async function assertCanSpend(workspaceId: string): Promise<void> {
  if (money(await balanceOf(workspaceId)).lte(0)) throw errors.insufficientQuota();
}
