// Fine-tuning cannot be paid with x402: a job outlives one payment (it is held at create and
// settled when training ends), so an x402 caller is told so before anything is read or held.
import { describe, expect, it } from "vitest";
import type { CallContext } from "../../server/identity/principal";
import { createFineTuningJob } from "../../server/fine-tuning/create-job";
import { GatewayError } from "../../server/kernel/errors";

describe("fine-tuning and x402", () => {
  it("an x402 caller gets 400 fine_tuning_not_payable", async () => {
    const ctx = { principal: { kind: "x402", workspaceId: "ws_x402", keyId: null, payment: null, scheme: null, resource: "http://gateway/v1/fine_tuning/jobs" } } as unknown as CallContext;
    const err = await createFineTuningJob(ctx, { model: "local-chat-sim", training_file: "file-1" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).toMatchObject({ status: 400, code: "fine_tuning_not_payable", param: null });
    expect((err as GatewayError).message).toContain("outlives one payment");
  });
});
