// Prices as the catalog states them: decimal strings shown as they are, never through a float.
import type { ModelDetail } from "@/server/routing/catalog/model-card";

const PRICE_LABELS: Array<[keyof ModelDetail["pricing"], string]> = [
  ["input_per_1m", "input / 1M tokens"],
  ["output_per_1m", "output / 1M tokens"],
  ["cache_read_per_1m", "cached input / 1M tokens"],
  ["cache_write_per_1m", "cache writes / 1M tokens"],
  ["reasoning_per_1m", "reasoning / 1M tokens"],
  ["per_1m_chars", "/ 1M characters"],
  ["per_audio_second", "/ audio second"],
  ["per_image", "/ image"],
  ["per_video_second", "/ video second"],
];

/** The prices that apply to the model: those that are not zero (a free model says so). */
export function ModelPricing({ pricing }: { pricing: ModelDetail["pricing"] }) {
  if (pricing.pricing_status === "unpriced") return <span className="text-amber-700">Not priced yet: not served until an operator prices it</span>;
  const prices = PRICE_LABELS.filter(([key]) => pricing[key] !== "0");
  if (prices.length === 0) return <span className="text-slate-500">Free</span>;
  return (
    <ul className="flex flex-col gap-0.5">
      {prices.map(([key, label]) => (
        <li key={key}>
          <span className="font-mono">${pricing[key]}</span> <span className="text-slate-500">{label}</span>
        </li>
      ))}
      {pricing.pricing_status !== "active" ? <li className="text-xs text-amber-700">pricing {pricing.pricing_status}</li> : null}
    </ul>
  );
}

export function VideoRanges({ video }: { video: ModelDetail["video"] }) {
  if (!video) return <span className="text-slate-400">—</span>;
  return (
    <ul className="flex flex-col gap-0.5">
      <li>
        {video.seconds.min}–{video.seconds.max} s
      </li>
      <li>
        {video.fps.min}–{video.fps.max} fps{video.default_fps ? ` (default ${video.default_fps})` : ""}
      </li>
      {video.supported_sizes.map((s) => (
        <li key={s.size}>
          <span className="font-mono">{s.size}</span> <span className="text-slate-500">price ×{s.price_multiplier}</span>
          {s.size === video.default_size ? <span className="text-slate-500"> (default)</span> : null}
        </li>
      ))}
    </ul>
  );
}
