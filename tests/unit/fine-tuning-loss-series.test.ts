// The loss chart's data: one point per step and series from a job's metrics events (which the API
// lists newest first), a step reported twice keeping its newest value, message events and
// malformed data ignored; and the round ticks of its axes.
import { describe, expect, it } from "vitest";
import { lossSeries, niceTicks } from "@/app/w/[workspaceId]/fine-tuning/[jobId]/loss-series";

const metrics = (id: string, data: Record<string, unknown>) => ({ id, created_at: 0, level: "info", message: "step", type: "metrics" as const, data });

describe("lossSeries", () => {
  it("reads train and valid loss per step in step order from events listed newest first", () => {
    const events = [
      metrics("e4", { step: 3, total_steps: 6, train_loss: 0.5 }),
      { id: "e3", created_at: 0, level: "info", message: "Epoch 1 done", type: "message" as const, data: {} },
      metrics("e2", { step: 2, total_steps: 6, train_loss: 0.9, valid_loss: 1.1 }),
      metrics("e1", { step: 1, total_steps: 6, train_loss: 1.4, valid_loss: 1.6 }),
    ];
    expect(lossSeries(events)).toEqual({
      train: [
        { step: 1, loss: 1.4 },
        { step: 2, loss: 0.9 },
        { step: 3, loss: 0.5 },
      ],
      valid: [
        { step: 1, loss: 1.6 },
        { step: 2, loss: 1.1 },
      ],
      totalSteps: 6,
    });
  });

  it("keeps the newest report of a step written twice, and skips data without a numeric step or loss", () => {
    const events = [metrics("new", { step: 1, train_loss: 0.7 }), metrics("old", { step: 1, train_loss: 0.8 }), metrics("bad", { step: "2", train_loss: 1 }), metrics("nan", { step: 4, train_loss: Number.NaN })];
    expect(lossSeries(events)).toEqual({ train: [{ step: 1, loss: 0.7 }], valid: [], totalSteps: null });
  });
});

describe("niceTicks", () => {
  it("covers the range with round steps", () => {
    expect(niceTicks(0, 2.3)).toEqual([0, 1, 2, 3]);
    expect(niceTicks(0.42, 0.61)).toEqual([0.4, 0.45, 0.5, 0.55, 0.6, 0.65]);
    expect(niceTicks(0, 100, 5)).toEqual([0, 20, 40, 60, 80, 100]);
  });
  it("gives a range of one value some height", () => {
    const ticks = niceTicks(0, 0);
    expect(ticks[0]).toBe(0);
    expect(ticks.at(-1)!).toBeGreaterThan(0);
  });
});
