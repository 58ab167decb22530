import { Badge, Table, Td } from "@/app/_components/ui";
import type { ModelDetail } from "@/server/routing/catalog/model-card";
import { ModelLimits } from "./model-limits";
import { ModelPricing, VideoRanges } from "./model-pricing";

const CAPABILITIES: Array<[keyof ModelDetail["capabilities"], string]> = [
  ["streaming", "streaming"],
  ["tools", "tools"],
  ["json_mode", "JSON mode"],
  ["structured_output", "structured output"],
  ["reasoning", "reasoning"],
];

export function ModelTable({ models }: { models: ModelDetail[] }) {
  return (
    <Table caption="Model catalog" head={["Model", "Type", "Prices (USD)", "Capabilities", "Unit and limits", "Video"]}>
      {models.map((m) => (
        <tr key={m.id} data-testid="model-row" data-model-id={m.id}>
          <Td>
            <div className="font-mono font-medium">{m.id}</div>
            <div className="text-xs text-slate-500">
              {m.display_name} · {m.provider}
            </div>
            <div className="mt-1 flex gap-1">
              {m.ready_now ? <Badge tone="green">available</Badge> : <Badge tone="amber">no node online</Badge>}
              {m.deprecated ? <Badge tone="red">deprecated</Badge> : null}
            </div>
          </Td>
          <Td>
            <Badge tone="indigo">{m.type}</Badge>
          </Td>
          <Td>
            <ModelPricing pricing={m.pricing} />
          </Td>
          <Td>
            <div className="flex max-w-56 flex-wrap gap-1 whitespace-normal">
              {CAPABILITIES.filter(([key]) => m.capabilities[key]).map(([key, label]) => (
                <Badge key={key}>{label}</Badge>
              ))}
            </div>
            <div className="mt-1 max-w-56 whitespace-normal text-xs text-slate-500">
              in: {m.capabilities.input_modalities.join(", ") || "—"} · out: {m.capabilities.output_modalities.join(", ") || "—"}
            </div>
          </Td>
          <Td>
            <ModelLimits model={m} />
          </Td>
          <Td>
            <VideoRanges video={m.video} />
          </Td>
        </tr>
      ))}
    </Table>
  );
}
