"use client";
// "Load more" under a list read a page at a time (an infinite query): shown while a next page exists.
import { Button } from "./ui";

type Pages = { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => unknown };

export function LoadMore({ pages }: { pages: Pages }) {
  if (!pages.hasNextPage) return null;
  return (
    <div>
      <Button variant="secondary" busy={pages.isFetchingNextPage} onClick={() => void pages.fetchNextPage()}>
        Load more
      </Button>
    </div>
  );
}
