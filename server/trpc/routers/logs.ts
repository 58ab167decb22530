// The request log of the workspace in `x-workspace-id`, for every member who may see its usage
// (`workspace.view`, as the usage router): the workspace always comes from the caller's
// membership, never from the input, so a key, plan or cursor of another workspace matches nothing
// of it and its rows never reach this one.
import { z } from "zod";
import { listLogs, ZLogFilter, type LogEntry } from "../../request-log/list-logs";
import { router, workspaceProcedure } from "../init";

const ZLogEntry = z.object({
  request_id: z.string(),
  created_at: z.string(),
  method: z.string(),
  route: z.string(),
  model: z.string().nullable(),
  node_id: z.string().nullable(),
  status: z.number().int(),
  error_code: z.string().nullable(),
  credential: z.object({
    kind: z.string(),
    key_id: z.string().nullable(),
    plan_id: z.string().nullable(),
    subject: z.string().nullable(),
    payer: z.string().nullable(),
  }),
  duration_ms: z.number(),
  upstream_ms: z.number().nullable(),
  first_byte_ms: z.number().nullable(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cost: z.string().nullable(),
  usage_estimated: z.boolean(),
  cache: z.string().nullable(),
  tags: z.record(z.string(), z.string()),
  client_ip: z.string().nullable(),
  user_agent: z.string().nullable(),
}) satisfies z.ZodType<LogEntry>;

/** One page, newest first; `next_cursor` opens the next (null on the last page). */
const ZLogPage = z.object({ logs: z.array(ZLogEntry), next_cursor: z.string().nullable() });

export const logsRouter = router({
  list: workspaceProcedure("workspace.view")
    .input(ZLogFilter)
    .output(ZLogPage)
    .query(({ ctx, input }) => listLogs(ctx.principal.workspaceId, input)),
});
