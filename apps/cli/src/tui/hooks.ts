import { useCallback, useEffect, useRef, useState } from 'react';
import { ink } from './ink';

/** The terminal's size, following resizes; 80×24 when the stream does not say. */
export function useTerminalSize(): { columns: number; rows: number } {
  const { stdout } = ink().useStdout();
  const read = useCallback(() => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 }), [stdout]);
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = () => setSize(read());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout, read]);
  return size;
}

export interface Polled<T> {
  data: T | undefined;
  error: string | null;
  /** Loads again now (after a change the user made). */
  reload: () => void;
}

export const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * `load` at once and then every `intervalMs` (null: once), one call at a time: the next starts
 * `intervalMs` after the last one answered, so a slow API is never asked twice at once. An
 * answer that arrives after the screen left, or after `key` changed, is dropped.
 */
export function usePolling<T>(load: () => Promise<T>, intervalMs: number | null, key: string): Polled<T> {
  const [state, setState] = useState<{ key: string; data: T | undefined; error: string | null }>({ key, data: undefined, error: null });
  const [round, setRound] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    let live = true;
    let timer: NodeJS.Timeout | undefined;
    const run = async () => {
      try {
        const data = await loadRef.current();
        if (live) setState({ key, data, error: null });
      } catch (err) {
        if (live) setState((s) => ({ key, data: s.key === key ? s.data : undefined, error: errorText(err) }));
      }
      if (live && intervalMs !== null) timer = setTimeout(() => void run(), intervalMs);
    };
    void run();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [key, intervalMs, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return state.key === key ? { data: state.data, error: state.error, reload } : { data: undefined, error: null, reload };
}

/**
 * State whose latest value key handlers read through the ref: keys typed quickly (or a paste
 * followed by Enter) reach the handler several times before React renders again, and a
 * handler reading the rendered value would act on a stale one.
 */
export function useSyncState<T>(initial: T): [T, (next: T) => void, { readonly current: T }] {
  const [value, setValue] = useState(initial);
  const ref = useRef(initial);
  const set = useCallback((next: T) => {
    ref.current = next;
    setValue(next);
  }, []);
  return [value, set, ref];
}
