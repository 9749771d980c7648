import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, get, withQuery, type ListPage } from '../api.ts';

export interface Async<T> {
  data: T | undefined;
  error: ApiError | null;
  loading: boolean;
  reload(): void;
}

/** Loads `load()` when `key` changes; the last answer wins. */
export function useAsync<T>(load: () => Promise<T>, key: string): Async<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const run = ++latest.current;
    setLoading(true);
    setError(null);
    load().then(
      (value) => {
        if (run !== latest.current) return;
        setData(value);
        setLoading(false);
      },
      (err: unknown) => {
        if (run !== latest.current) return;
        setError(err instanceof ApiError ? err : new ApiError(0, 'client_error', String(err)));
        setLoading(false);
      },
    );
  }, [key, tick]);
  return { data, error, loading, reload: useCallback(() => setTick((n) => n + 1), []) };
}

export interface CursorList<T> extends Async<ListPage<T>> {
  hasPrevious: boolean;
  next(): void;
  previous(): void;
}

/** A cursor-paged list: the API's next_cursor forwards, a stack of the cursors seen backwards. */
export function useCursorList<T>(
  path: string,
  query: Record<string, string | number | boolean | string[] | null | undefined>,
  limit = 20,
): CursorList<T> {
  const base = withQuery(path, { ...query, limit });
  const [cursors, setCursors] = useState<string[]>([]);
  const [lastBase, setLastBase] = useState(base);
  if (base !== lastBase) {
    setLastBase(base);
    setCursors([]);
  }
  const cursor = cursors[cursors.length - 1] ?? null;
  const url = withQuery(path, { ...query, limit, cursor });
  const result = useAsync(() => get<ListPage<T>>(url), url);
  return {
    ...result,
    hasPrevious: cursors.length > 0,
    next: () => {
      const nextCursor = result.data?.next_cursor;
      if (nextCursor) setCursors([...cursors, nextCursor]);
    },
    previous: () => setCursors(cursors.slice(0, -1)),
  };
}
