"use client";
// The response cache on the usage page: its hits, their share of the requests (the hit rate) and
// the money they saved (what the original calls cost beyond the cache price), in total, per day
// and per model, for the same filter as the rest of the page.
import type { UsageSummary } from "@/server/ledger/usage/usage-summary";
import { Table, Td } from "@/app/_components/ui";
import { formatCount, formatUsd } from "./format";

type Figures = UsageSummary["totals"];

const rate = (f: Figures) => (f.requests ? `${((100 * f.cacheHits) / f.requests).toFixed(1)}%` : "—");

function Row({ label, f }: { label: string; f: Figures }) {
  return (
    <tr>
      <Td>{label}</Td>
      <Td>{formatCount(f.cacheHits)}</Td>
      <Td>{rate(f)}</Td>
      <Td>
        <span title={`${f.cacheSaved} USD`}>{formatUsd(f.cacheSaved)}</span>
      </Td>
    </tr>
  );
}

export function CacheSavings({ summary }: { summary: UsageSummary }) {
  const t = summary.totals;
  const days = summary.days.filter((d) => d.cacheHits > 0).reverse();
  const models = summary.models.filter((m) => m.cacheHits > 0);
  return (
    <section aria-labelledby="cache-savings-title" role="region" className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-6">
      <h2 id="cache-savings-title" className="text-base font-semibold">
        Response cache
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        Hits {formatCount(t.cacheHits)} · hit rate {rate(t)} of the billed requests · Saved {formatUsd(t.cacheSaved)}
        <span className="text-slate-500"> (what the original calls cost beyond the cache price)</span>
      </p>
      {t.cacheHits > 0 ? (
        <div className="mt-4 grid gap-6 lg:grid-cols-2">
          <Table caption="Cache hits per day" head={["Day (UTC)", "Hits", "Hit rate", "Saved"]}>
            {days.map((d) => (
              <Row key={d.day} label={d.day} f={d} />
            ))}
          </Table>
          <Table caption="Cache hits per model" head={["Model", "Hits", "Hit rate", "Saved"]}>
            {models.map((m) => (
              <Row key={m.modelId} label={m.modelId} f={m} />
            ))}
          </Table>
        </div>
      ) : null}
    </section>
  );
}
