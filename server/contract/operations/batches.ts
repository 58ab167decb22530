// Batches: a file of requests run in the background within 24 hours, each line billed at the
// model's batch price (server/batches/).
import { createBatch } from "../../batches/create-batch";
import { cancelBatch, getBatch, listBatches } from "../../batches/manage-batches";
import { ZBatchCreate, ZBatchId, ZBatchList, ZBatchListPage, ZBatchObject } from "../../batches/schema";
import { operation } from "../operation";

const batchesCreate = operation({
  id: "batches.create",
  method: "POST",
  path: "/v1/batches",
  summary: "Create a batch from an uploaded `batch` file (JSONL of requests to one endpoint)",
  tags: ["Batches"],
  kind: "mutation",
  tier: "billed",
  permission: "batches",
  body: { kind: "json" },
  input: ZBatchCreate,
  output: ZBatchObject,
  produces: { kind: "json" },
  errors: { 404: "No such input file in the workspace (`file_not_found`)." },
  pricing: {
    kind: "metered",
    unit: "tokens",
    note: "each line is billed as the live call it makes, at the model's `batch_discount` fraction of the price (0.5 by default), once",
  },
  handler: (ctx, input) => createBatch(ctx, input),
});

const batchesList = operation({
  id: "batches.list",
  method: "GET",
  path: "/v1/batches",
  summary: "List batches, newest first",
  tags: ["Batches"],
  kind: "query",
  tier: "api_key",
  permission: "batches",
  body: { kind: "none" },
  query: true,
  input: ZBatchList,
  output: ZBatchListPage,
  produces: { kind: "json" },
  pricing: { kind: "free" },
  handler: (ctx, input) => listBatches(ctx, input),
});

const batchesGet = operation({
  id: "batches.get",
  method: "GET",
  path: "/v1/batches/{id}",
  summary: "Retrieve a batch",
  tags: ["Batches"],
  kind: "query",
  tier: "api_key",
  permission: "batches",
  body: { kind: "none" },
  input: ZBatchId,
  output: ZBatchObject,
  produces: { kind: "json" },
  pricing: { kind: "free" },
  handler: (ctx, input) => getBatch(ctx, input.id),
});

const batchesCancel = operation({
  id: "batches.cancel",
  method: "POST",
  path: "/v1/batches/{id}/cancel",
  summary: "Cancel a batch: no further line runs; the lines done are kept and billed",
  tags: ["Batches"],
  kind: "mutation",
  tier: "api_key",
  permission: "batches",
  body: { kind: "none" },
  input: ZBatchId,
  output: ZBatchObject,
  produces: { kind: "json" },
  errors: { 409: "The batch has already ended (`batch_not_cancellable`)." },
  pricing: { kind: "free" },
  handler: (ctx, input) => cancelBatch(ctx, input.id),
});

export const batchesOperations = { create: batchesCreate, list: batchesList, get: batchesGet, cancel: batchesCancel };
