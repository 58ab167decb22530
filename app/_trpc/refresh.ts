// After a change, the queries that show it are fetched again. `invalidateQueries` alone is not
// enough: a query whose first fetch is still in flight (a page opened a moment before the change)
// joins that fetch, which may have read the data before the change, so the page kept showing
// the old figures. The fetch in flight is cancelled first, then the query fetched anew.
import type { QueryClient, QueryKey } from "@tanstack/react-query";

export async function refresh(queryClient: QueryClient, ...queryKeys: QueryKey[]): Promise<void> {
  await Promise.all(queryKeys.map((queryKey) => queryClient.cancelQueries({ queryKey })));
  await Promise.all(queryKeys.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
}
