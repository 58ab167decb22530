// The API's objects as the Fine-tuning pages read them (OpenAI's fine-tuning job, event and
// checkpoint), and what the dashboard adds beside them: a job's cost and hold.
import type { FineTuningCheckpointObject, FineTuningEventObject, FineTuningJobObject } from "@/server/fine-tuning/schema";

export type FtJobView = FineTuningJobObject;
export type FtStatus = FtJobView["status"];
/** The chart reads only the fields it draws, so events in any stage of loading fit. */
export type FtEventView = Pick<FineTuningEventObject, "id" | "type" | "data">;
export type FtEventItem = FineTuningEventObject;
export type FtCheckpointView = FineTuningCheckpointObject;

/** What a job cost (USD, exact; null until it ends) and what is still held for it. */
export type JobMoney = { cost: string | null; held: string };
