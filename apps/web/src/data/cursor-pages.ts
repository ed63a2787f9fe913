import { type QueryKey, useInfiniteQuery } from '@tanstack/react-query';

/** A page as every keyset-paged RPC answers it: its cursor to the next page, null after the last. */
interface CursorPage {
  meta: { nextCursor?: string | null };
}

interface CursorPagesOptions {
  /** The cursor of the first page to read (none: the start). */
  from?: string;
  enabled?: boolean;
  refetchInterval?: number;
  retry?: boolean;
}

/** The pages of a keyset-paged RPC, read one more at a time with `fetchNextPage`. */
export function useCursorPages<P extends CursorPage>(
  queryKey: QueryKey,
  fetchPage: (cursor: string | undefined) => Promise<P>,
  { from, ...options }: CursorPagesOptions = {},
) {
  return useInfiniteQuery({
    queryKey,
    queryFn: ({ pageParam }) => fetchPage(pageParam),
    initialPageParam: from,
    getNextPageParam: (last) => last.meta.nextCursor ?? undefined,
    ...options,
  });
}
