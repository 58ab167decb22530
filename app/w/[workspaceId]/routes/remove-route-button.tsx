"use client";
// Removing a workspace's route asks for a confirmation in place. The server refuses a route that
// another route still names (route_in_use); its message is shown in the row.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/app/_trpc/client";
import { refresh } from "@/app/_trpc/refresh";
import { ConfirmInRow } from "@/app/_components/confirm-in-row";

export function RemoveRouteButton({ name }: { name: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.routes.remove.mutationOptions({ onSuccess: () => refresh(queryClient, trpc.routes.list.queryKey()) }));
  return (
    <ConfirmInRow
      label="Remove"
      ariaLabel={`Remove the route ${name}`}
      confirmAriaLabel={`Confirm removing the route ${name}`}
      note="Remove it? Calls naming it go to a gateway-wide route of that name, if any, else are refused."
      confirmLabel="Yes, remove"
      busy={remove.isPending}
      error={remove.error}
      onConfirm={() => remove.mutate({ name })}
    />
  );
}
