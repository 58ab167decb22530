// Runs in every test worker: points server code at the test database.
import { inject } from "vitest";
import { useDatabase } from "../../server/infra/db/client";

const url = inject("databaseUrl");
if (url) useDatabase(url);
