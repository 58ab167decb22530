// Emits one alert from a process of its own (as a second gateway instance would), prints how many
// deliveries it created: node --import tsx tests/fakes/emit-alert.ts WORKSPACE_ID TYPE EVENT_ID
import { emitAlertNow } from "../../server/alerts/emit";
import type { AlertType } from "../../server/alerts/events";
import { stopJobQueue } from "../../server/infra/jobs/boss";

const [workspaceId, type, eventId] = process.argv.slice(2);
const created = await emitAlertNow(workspaceId!, type as AlertType, eventId!, { from: "second process" });
process.stdout.write(`${created}\n`);
await stopJobQueue(1000);
process.exit(0);
