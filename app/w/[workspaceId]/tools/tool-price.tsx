"use client";
// A tool's price per call, edited in place by owners and admins: a price of its own, or cleared
// back to the server's price per call. The server checks the amount and refuses it naming why.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { Button, ErrorState } from "@/app/_components/ui";
import { perCall } from "./tools-format";

type Props = { server: string; tool: string; qualifiedName: string; price: string | null; own: string | undefined; editable: boolean };

export function ToolPrice({ server, tool, qualifiedName, price, own, editable }: Props) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [value, setValue] = useState(own ?? "");
  const save = useMutation(trpc.mcp.price.mutationOptions({ onSuccess: () => refresh(queryClient, trpc.mcp.list.queryKey()) }));

  function submit(e: FormEvent) {
    e.preventDefault();
    save.mutate({ server, tool, per_call: value.trim() || null });
  }

  return (
    <div className="flex flex-col gap-1">
      <span className="tabular-nums" data-testid="tool-price">
        {perCall(price)}
        {own !== undefined ? <span className="text-slate-500"> (its own)</span> : null}
      </span>
      {editable ? (
        <form onSubmit={submit} aria-label={`Price of ${qualifiedName}`} className="flex flex-wrap items-center gap-2">
          <input
            aria-label={`Price per call of ${qualifiedName} in USD`}
            inputMode="decimal"
            value={value}
            onChange={(e) => setValue(e.target.value)}
            placeholder="the server's"
            className="w-28 rounded-md border border-slate-300 bg-white px-2 py-1 text-sm shadow-sm focus:border-indigo-500"
          />
          <Button type="submit" variant="secondary" className="px-2 py-1" busy={save.isPending} aria-label={`Save the price of ${qualifiedName}`}>
            Save
          </Button>
          {own !== undefined ? (
            <Button
              variant="ghost"
              className="px-2 py-1"
              disabled={save.isPending}
              aria-label={`Clear the price of ${qualifiedName}`}
              onClick={() => {
                setValue("");
                save.mutate({ server, tool, per_call: null });
              }}
            >
              Clear
            </Button>
          ) : null}
        </form>
      ) : null}
      <ErrorState error={save.error} />
    </div>
  );
}
