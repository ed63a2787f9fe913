import { useCallback, useEffect, useRef, useState } from 'react';
import { errorText, useSyncState } from '../hooks';
import { ink } from '../ink';
import { type LineEdit, actionFor, editLine } from '../keys';
import { EMPTY_LIST, type ListState, clampList, moveSelection, reselect, visibleRows } from '../list-state';
import { EMPTY_LIVE, type LiveList, appendPage, refreshTop } from '../live-list';
import { traceHeaderRow, traceRow } from '../rows';
import type { TraceSummary } from '../spanlog-rpc';
import { type TraceFilter, formatTraceFilter, isEmptyFilter, parseTraceFilter } from '../trace-filter';
import { Line, MessageLine, Rows } from '../widgets';
import type { ProjectScreenProps } from './screen-props';

/** What the list keeps while a trace is open, so Esc comes back to the same filter and row. */
export interface TraceListMemory {
  filter: TraceFilter;
  selectedId: string | undefined;
}

interface Props extends ProjectScreenProps {
  memory: TraceListMemory;
  /** Whether a prompt takes the keys, so the app's own keys (q, Tab) stay out of it. */
  setCapturing: (capturing: boolean) => void;
  onOpen: (traceId: string) => void;
}

export const TRACE_LIST_HELP = '↑↓ move · Enter open · / filter · Esc back · Tab screens · q quit';
export const FILTER_HELP = 'name:N user:U tag:T (words = name) · Enter apply · Esc cancel';

const PAGE_SIZE = 50;

export function TraceList({ rpc, memory, projectId, width, height, pollMs, setCapturing, onOpen, onBack }: Props) {
  const { useInput } = ink();
  const [filter, setFilterState] = useState<TraceFilter>(memory.filter);
  // The rows and the selection change together, so no frame shows new rows with the old selection.
  const [view, setView, viewRef] = useSyncState<{ live: LiveList<TraceSummary>; list: ListState }>({ live: EMPTY_LIVE, list: EMPTY_LIST });
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing, editingRef] = useSyncState<LineEdit | null>(null);
  const [filterError, setFilterError] = useState<string | null>(null);
  const loadingMore = useRef(false);
  const rowsHeight = height - 3;
  const { live } = view;
  const list = clampList(view.list, live.rows.length, rowsHeight);

  /** New rows, with the selection kept on the trace it was on (new traces arrive above it). */
  const showRows = useCallback(
    (next: LiveList<TraceSummary>) => {
      const current = viewRef.current;
      const selectedId = current.live.rows[current.list.index]?.id ?? memory.selectedId;
      const nextList = reselect(
        current.list,
        selectedId,
        next.rows.map((r) => r.id),
        rowsHeight,
      );
      memory.selectedId = next.rows[nextList.index]?.id ?? selectedId;
      setView({ live: next, list: nextList });
    },
    [viewRef, setView, memory, rowsHeight],
  );

  // The first page, again every pollMs, merged over what is shown so new traces appear at the top.
  useEffect(() => {
    let active = true;
    let timer: NodeJS.Timeout | undefined;
    const poll = async () => {
      try {
        const page = await rpc.traces(projectId, filter, PAGE_SIZE);
        if (!active) return;
        showRows(refreshTop(viewRef.current.live, { rows: page.data, nextCursor: page.meta.nextCursor }));
        setLoaded(true);
        setError(null);
      } catch (err) {
        if (active) setError(errorText(err));
      }
      if (active) timer = setTimeout(() => void poll(), pollMs);
    };
    void poll();
    return () => {
      active = false;
      clearTimeout(timer);
    };
  }, [rpc, projectId, filter, pollMs, showRows, viewRef]);

  /** A new filter starts a new list, from its top. */
  const setFilter = (next: TraceFilter) => {
    memory.filter = next;
    memory.selectedId = undefined;
    setFilterState(next);
    setView({ live: EMPTY_LIVE, list: EMPTY_LIST });
    setLoaded(false);
  };

  const loadMore = async () => {
    const cursor = viewRef.current.live.nextCursor;
    if (loadingMore.current || cursor === null) return;
    loadingMore.current = true;
    try {
      const page = await rpc.traces(projectId, filter, PAGE_SIZE, cursor);
      showRows(appendPage(viewRef.current.live, { rows: page.data, nextCursor: page.meta.nextCursor }));
    } catch (err) {
      setError(errorText(err));
    } finally {
      loadingMore.current = false;
    }
  };

  const select = (next: ListState) => {
    const rows = viewRef.current.live.rows;
    setView({ live: viewRef.current.live, list: next });
    memory.selectedId = rows[next.index]?.id;
    if (next.index >= rows.length - 1) void loadMore();
  };

  useInput((input, key) => {
    const editing = editingRef.current;
    if (editing) {
      const result = editLine(editing, input, key);
      if (result.kind === 'editing') setEditing(result.line);
      else if (result.kind === 'cancel') {
        setEditing(null);
        setFilterError(null);
        setCapturing(false);
      } else {
        const parsed = parseTraceFilter(result.text);
        if (!parsed.ok) setFilterError(parsed.error);
        else {
          setFilter(parsed.filter);
          setEditing(null);
          setFilterError(null);
          setCapturing(false);
        }
      }
      return;
    }
    const action = actionFor(input, key);
    switch (action.kind) {
      case 'move':
        select(moveSelection(viewRef.current.list, action.move, viewRef.current.live.rows.length, rowsHeight));
        break;
      case 'open': {
        const { live: shown, list: at } = viewRef.current;
        if (shown.rows[at.index]) onOpen(shown.rows[at.index].id);
        break;
      }
      case 'filter':
        setEditing({ text: isEmptyFilter(filter) ? '' : `${formatTraceFilter(filter)} ` });
        setCapturing(true);
        break;
      case 'back':
        if (isEmptyFilter(filter)) onBack();
        else setFilter({});
        break;
      case 'quit':
      case 'nextScreen':
      case 'letter':
      case 'none':
        break;
    }
  });

  const now = new Date();
  const status = editing
    ? null
    : `${isEmptyFilter(filter) ? 'all traces' : `filter ${formatTraceFilter(filter)}`} · ${live.rows.length}${live.nextCursor ? '+' : ''} shown · live`;
  const empty =
    loaded && live.rows.length === 0
      ? [
          <Line
            key="empty"
            text={isEmptyFilter(filter) ? '  no traces yet: they appear here as they arrive' : '  no trace matches the filter'}
            width={width}
            dim
          />,
        ]
      : [];
  return (
    <Rows height={height} width={width}>
      {editing ? (
        <Line key="prompt" text={`/ ${editing.text}█`} width={width} color="cyan" />
      ) : (
        <MessageLine key="status" error={error} note={loaded ? status : 'loading traces…'} width={width} />
      )}
      <MessageLine key="filter-help" error={filterError} note={editing ? FILTER_HELP : ''} width={width} />
      <Line key="header" text={traceHeaderRow(width)} width={width} dim />
      {...empty}
      {...visibleRows(live.rows, list, rowsHeight).map((t, i) => {
        const selected = list.top + i === list.index;
        return <Line key={t.id} text={traceRow(t, selected, width, now)} width={width} selected={selected} />;
      })}
    </Rows>
  );
}
