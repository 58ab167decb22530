"use client";
// Revenue per UTC day as a small bar chart (recharts, like the usage page). Values become numbers
// for plotting only; every figure shown as text comes from the exact decimal strings.
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { usdAxis, usdTooltip } from "../usage/format";

const HEIGHT = 200;

export function RevenueChart({ byDay }: { byDay: { day: string; revenue: string }[] }) {
  // Oldest first, left to right.
  const data = [...byDay].reverse().map((d) => ({ day: d.day.slice(5), revenue: Number(d.revenue), exact: d.revenue }));
  return (
    <div style={{ height: HEIGHT }} aria-hidden>
      <ResponsiveContainer width="100%" height={HEIGHT}>
        <BarChart data={data}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="day" fontSize={12} />
          <YAxis tickFormatter={usdAxis(Math.max(0, ...data.map((d) => d.revenue)))} fontSize={12} width={80} />
          <Tooltip formatter={(value, _n, item) => usdTooltip((item?.payload as { exact?: string } | undefined)?.exact, value)} />
          <Bar dataKey="revenue" name="Revenue (USD)" fill="#4f46e5" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
