"use client";
import { useState } from "react";
import { Card, EmptyState, ErrorState, Loading, PageHeader, SelectField } from "@/app/_components/ui";
import type { ModelType } from "@/server/routing/catalog/model-card";
import { ModelTable } from "./model-table";
import { useModelDetails } from "./use-model-details";

const TYPES: ModelType[] = ["chat", "embedding", "speech", "transcription", "image", "video", "moderation"];

export default function ModelsPage() {
  const [type, setType] = useState<ModelType | "">("");
  const { models, isLoading, error, refetch } = useModelDetails(type || undefined);
  return (
    <>
      <PageHeader title="Models" description="The catalog: what each model costs, what it can do, and whether a node serving it is online now." />
      <Card
        title="Catalog"
        actions={
          <SelectField label="Type" value={type} onChange={(e) => setType(e.target.value as ModelType | "")} className="min-w-40">
            <option value="">All types</option>
            {TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </SelectField>
        }
      >
        {error ? (
          <ErrorState error={error} onRetry={refetch} />
        ) : isLoading ? (
          <Loading label="Loading models…" />
        ) : models.length === 0 ? (
          <EmptyState title={type ? `No ${type} models in the catalog.` : "The catalog is empty."}>Models appear when an operator adds a node that serves them.</EmptyState>
        ) : (
          <ModelTable models={models} />
        )}
      </Card>
    </>
  );
}
