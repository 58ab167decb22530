// The first process is told that calls were answered lately (by itself, or by another process
// over IPC: ProcessGroup.live); batches it runs itself (BATCH_PROCESS=false) give way from then on.
import { describe, expect, it } from "vitest";
import { ProcessGroup } from "../../server/transport/node/process-group";

describe("a process group told of live calls", () => {
  it("tells the batches run in its own process (onLive), once per report", () => {
    let told = 0;
    const group = new ProcessGroup(() => undefined, () => undefined, () => told++);
    group.live();
    group.live();
    expect(told).toBe(2);
  });
});
