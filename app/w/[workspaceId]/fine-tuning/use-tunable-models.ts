"use client";
// The chat models this workspace may fine-tune: those whose card says `fine_tunable`.
import { useModelDetails } from "../models/use-model-details";

const tunable = (m: object) => (m as { fine_tunable?: boolean }).fine_tunable === true;

export function useTunableModels() {
  const details = useModelDetails("chat");
  return { ...details, models: details.models.filter((m) => tunable(m) && !m.deprecated) };
}
