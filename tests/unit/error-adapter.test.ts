import { TRPCError } from "@trpc/server";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { logger } from "../../server/infra/telemetry/log";
import { errors, GatewayError } from "../../server/kernel/errors";
import { errorResponse, formatParam, toGatewayError } from "../../server/transport/error-adapter";

describe("the one error adapter", () => {
  it("names nested params the way OpenAI does", () => {
    expect(formatParam(["messages", 0, "role"])).toBe("messages[0].role");
    expect(formatParam(["model"])).toBe("model");
    expect(formatParam([])).toBeNull();
  });

  it("turns a validation failure into 400 with the offending param", () => {
    const result = z.object({ messages: z.array(z.object({ role: z.enum(["user"]) })) }).safeParse({ messages: [{ role: "x" }] });
    const err = toGatewayError(result.error)!;
    expect(err.status).toBe(400);
    expect(err.param).toBe("messages[0].role");
    expect(err.type).toBe("invalid_request_error");
  });

  it("unwraps a GatewayError that tRPC wrapped", () => {
    const wrapped = new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause: errors.modelNotFound("m") });
    expect(toGatewayError(wrapped)).toMatchObject({ status: 404, code: "model_not_found", param: "model" });
  });

  it("an unexpected error is a 500 that shows the request id and nothing of the cause", async () => {
    // The adapter's logger is a child of the process's: its level methods are the parent's.
    const log = vi.spyOn(logger(), "error").mockImplementation(() => undefined);
    const res = errorResponse(new Error("connection to postgres://admin:hunter2@db failed"), "req_abc");
    expect(res.status).toBe(500);
    expect(res.headers.get("x-request-id")).toBe("req_abc");
    const text = await res.text();
    expect(text).not.toContain("hunter2");
    expect(text).not.toContain("at ");
    expect(JSON.parse(text)).toEqual({
      error: { code: "internal_error", type: "server_error", param: null, message: expect.stringContaining("req_abc") },
    });
    expect(log).toHaveBeenCalledWith(expect.objectContaining({ requestId: "req_abc", err: expect.any(Error) }), "internal error");
    log.mockRestore();
  });

  it("keeps the status, code, type and headers a GatewayError names", async () => {
    const res = errorResponse(new GatewayError({ status: 429, code: "rate_limited", message: "slow down", detail: { retryAfter: 1 } }), "req_1");
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("1");
    expect((await res.json()).error).toEqual({ code: "rate_limited", message: "slow down", param: null, type: "rate_limit_error" });
  });
});
