import { useMemo } from 'react';
import { usePolling, useSyncState } from '../hooks';
import { ink } from '../ink';
import { actionFor } from '../keys';
import { EMPTY_LIST, type ListState, moveSelection, reselect, visibleRows } from '../list-state';
import { spanTree } from '../span-tree';
import { spanDetailLines, spanHeaderRow, spanPreviewLines, spanRow, traceHeaderLines } from '../rows';
import type { Span } from '../spanlog-rpc';
import { Line, MessageLine, Rows } from '../widgets';
import type { ProjectScreenProps } from './screen-props';

interface Props extends ProjectScreenProps {
  traceId: string;
}

export const TRACE_VIEW_HELP = '↑↓ move · Enter span details · Esc back · Tab screens · q quit';

/** The pages after the first (which is polled), read on demand as the selection reaches the end. */
interface LaterPages {
  spans: Span[];
  cursor: string | null;
  loading: boolean;
}
const NO_LATER_PAGES: LaterPages = { spans: [], cursor: null, loading: false };

/** The first page as polled, then the later pages' spans it does not hold. */
function loadedSpans(first: Span[], later: Span[]): Span[] {
  if (!later.length) return first;
  const ids = new Set(first.map((s) => s.id));
  return [...first, ...later.filter((s) => !ids.has(s.id))];
}

export function TraceView({ rpc, projectId, traceId, width, height, pollMs, onBack }: Props) {
  const { useInput } = ink();
  // A trace may still be receiving spans: it is read again like the list.
  const { data: trace, error } = usePolling(() => rpc.trace(projectId, traceId), pollMs, `${projectId}/${traceId}`);
  // The selection is a span, not a row number: spans still arriving may land above it.
  const [selection, setSelection, selectionRef] = useSyncState<{ list: ListState; spanId?: string }>({ list: EMPTY_LIST });
  const [detail, setDetail, detailRef] = useSyncState<{ spanId: string; top: number } | null>(null);
  const [later, setLater, laterRef] = useSyncState<LaterPages>(NO_LATER_PAGES);
  const spans = useMemo(() => (trace ? loadedSpans(trace.spans, later.spans) : []), [trace, later.spans]);
  const rows = useMemo(() => spanTree(spans), [spans]);
  const nextCursor = later.spans.length ? later.cursor : (trace?.nextSpansCursor ?? null);
  const loadMore = () => {
    const pages = laterRef.current;
    const cursor = pages.spans.length ? pages.cursor : (trace?.nextSpansCursor ?? null);
    if (!cursor || pages.loading) return;
    setLater({ ...pages, loading: true });
    rpc.traceSpans(projectId, traceId, cursor).then(
      (page) => setLater({ spans: [...laterRef.current.spans, ...page.data], cursor: page.meta.nextCursor, loading: false }),
      () => setLater({ ...laterRef.current, loading: false }),
    );
  };

  const headerHeight = 3;
  const detailHeight = Math.max(3, Math.floor((height - headerHeight - 1) / 2));
  const treeHeight = Math.max(1, height - headerHeight - 1 - detailHeight);
  const ids = rows.map((r) => r.span.id);
  const shown = reselect(selection.list, selection.spanId, ids, treeHeight);
  const selected = rows[shown.index]?.span;
  const pageSpan = detail ? spans.find((s) => s.id === detail.spanId) : undefined;
  // A span whose input or output a page cut is read whole for its details.
  const whole = usePolling(
    () => (pageSpan?.truncated ? rpc.span(projectId, traceId, pageSpan.id) : Promise.resolve(null)),
    null,
    pageSpan?.truncated ? pageSpan.id : '',
  );
  const detailSpan = whole.data ?? pageSpan;
  const fullLines = detailSpan && trace ? spanDetailLines(detailSpan, trace, width) : [];
  const fullHeight = height - 1;

  useInput((input, key) => {
    const action = actionFor(input, key);
    const detail = detailRef.current;
    if (detail) {
      if (action.kind === 'back') setDetail(null);
      else if (action.kind === 'move') {
        const scroll = moveSelection(
          { index: detail.top, top: detail.top },
          action.move,
          Math.max(1, fullLines.length - fullHeight + 1),
          fullHeight,
        );
        setDetail({ ...detail, top: scroll.index });
      }
      return;
    }
    const current = reselect(selectionRef.current.list, selectionRef.current.spanId, ids, treeHeight);
    if (action.kind === 'move') {
      const next = moveSelection(current, action.move, rows.length, treeHeight);
      setSelection({ list: next, spanId: ids[next.index] });
      if (next.index >= rows.length - 1) loadMore();
    } else if (action.kind === 'open' && rows[current.index]) setDetail({ spanId: rows[current.index].span.id, top: 0 });
    else if (action.kind === 'back') onBack();
  });

  if (!trace)
    return (
      <Rows height={height} width={width}>
        {[<MessageLine key="m" error={error} note="loading the trace…" width={width} />]}
      </Rows>
    );

  if (detail && detailSpan) {
    return (
      <Rows height={height} width={width}>
        <MessageLine key="m" error={error} note={`span ${detailSpan.id} · ↑↓ scroll · Esc back to the tree`} width={width} />
        {...fullLines
          .slice(detail.top, detail.top + fullHeight)
          .map((line, i) => <Line key={`d${detail.top + i}`} text={line} width={width} />)}
      </Rows>
    );
  }

  const header = traceHeaderLines(trace, new Date());
  // On the line under the tree, where a long header cannot push it out of the terminal's width.
  const loaded = nextCursor
    ? ` ${spans.length} of ${trace.spanCount} spans loaded${later.loading ? ', loading more…' : ' · ↓ on the last loads more'} `
    : '';
  const preview = selected ? spanPreviewLines(selected, trace).slice(0, detailHeight) : [];
  return (
    <Rows height={height} width={width}>
      <MessageLine key="m" error={error} note={header[0]} width={width} />
      <Line key="h2" text={header[1]} width={width} dim />
      <Line key="cols" text={spanHeaderRow(width)} width={width} dim />
      {...visibleRows(rows, shown, treeHeight).map((row, i) => {
        const isSelected = shown.top + i === shown.index;
        return (
          <Line
            key={row.span.id}
            text={spanRow(row, isSelected, width)}
            width={width}
            selected={isSelected}
            color={row.span.level === 'ERROR' ? 'red' : undefined}
          />
        );
      })}
      {...rows.length === 0 ? [<Line key="nospans" text="  no spans yet: they appear as they arrive" width={width} dim />] : []}
      {...Array.from({ length: Math.max(0, treeHeight - Math.max(1, rows.length)) }, (_, i) => (
        <Line key={`pad${i}`} text="" width={width} />
      ))}
      <Line
        key="sep"
        text={loaded ? `──${loaded}${'─'.repeat(Math.max(0, width - loaded.length - 2))}` : '─'.repeat(width)}
        width={width}
        dim
      />
      {...preview.map((line, i) => <Line key={`p${i}`} text={line} width={width} />)}
    </Rows>
  );
}
