-- Each cache miss writes an entry: one index fewer to keep for it. Clearing a model's entries
-- reads the workspace's through the primary key, as clearing a key's already does.
DROP INDEX "ResponseCacheEntry_workspaceId_modelId_idx";
