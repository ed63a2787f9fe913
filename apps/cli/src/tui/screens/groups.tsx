import { useRef, useState } from 'react';
import { groupHeaderRow, groupRow, groupTotalsLine, traceTurnLines } from '../group-rows';
import { errorText, usePolling, useSyncState } from '../hooks';
import { ink } from '../ink';
import { actionFor } from '../keys';
import { EMPTY_LIST, type ListState, clampList, moveSelection, visibleRows } from '../list-state';
import { traceHeaderRow, traceRow } from '../rows';
import type { GroupKind, GroupSummary, Page, TraceSummary } from '../spanlog-rpc';
import { Line, MessageLine, Rows } from '../widgets';
import type { ProjectScreenProps } from './screen-props';

const PAGE_SIZE = 50;

export const GROUP_LIST_HELP = '↑↓ move · Enter open · Esc back · Tab screens · q quit';
export const GROUP_VIEW_HELP = '↑↓ trace · Enter open the trace · Esc back · q quit';

/**
 * A list read a page at a time: the first page again every interval, older pages appended as
 * the selection reaches the end (a session of thousands of traces is never read whole).
 */
function usePagedList<T extends { id: string }>(load: (cursor?: string) => Promise<Page<T>>, pollMs: number, key: string) {
  const first = usePolling(() => load(), pollMs, key);
  const [more, setMore] = useState<{ key: string; rows: T[]; nextCursor: string | null } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const loading = useRef(false);
  const extra = more?.key === key ? more : null;
  const shownIds = new Set(first.data?.data.map((r) => r.id) ?? []);
  const rows = [...(first.data?.data ?? []), ...(extra?.rows.filter((r) => !shownIds.has(r.id)) ?? [])];
  const nextCursor = extra ? extra.nextCursor : (first.data?.meta.nextCursor ?? null);
  const loadMore = () => {
    if (loading.current || nextCursor === null) return;
    loading.current = true;
    load(nextCursor)
      .then((page) => setMore({ key, rows: [...(extra?.rows ?? []), ...page.data], nextCursor: page.meta.nextCursor }))
      .catch((err: unknown) => setError(errorText(err)))
      .finally(() => (loading.current = false));
  };
  return { rows, loaded: first.data !== undefined, hasMore: nextCursor !== null, error: first.error ?? error, loadMore };
}

interface ListProps extends ProjectScreenProps {
  kind: GroupKind;
  onOpen: (id: string) => void;
}

/** The project's sessions or users, the most recently active first. */
export function GroupList({ kind, rpc, projectId, width, height, pollMs, onOpen, onBack }: ListProps) {
  const { useInput } = ink();
  const list = usePagedList((cursor) => rpc.groups(kind, projectId, PAGE_SIZE, cursor), pollMs, `${kind}s/${projectId}`);
  const [selection, setSelection, selectionRef] = useSyncState<ListState>(EMPTY_LIST);
  const rowsHeight = height - 2;
  const shown = clampList(selection, list.rows.length, rowsHeight);
  const rowsRef = useRef(list.rows);
  rowsRef.current = list.rows;
  useInput((input, key) => {
    const action = actionFor(input, key);
    if (action.kind === 'move') {
      const next = moveSelection(selectionRef.current, action.move, rowsRef.current.length, rowsHeight);
      setSelection(next);
      if (next.index >= rowsRef.current.length - 1) list.loadMore();
    } else if (action.kind === 'open') {
      const row = rowsRef.current[clampList(selectionRef.current, rowsRef.current.length, rowsHeight).index];
      if (row) onOpen(row.id);
    } else if (action.kind === 'back') onBack();
  });
  const now = new Date();
  const noun = kind === 'session' ? 'sessions' : 'users';
  const note = !list.loaded
    ? `loading ${noun}…`
    : list.rows.length === 0
      ? `no ${noun} yet: traces name them by ${kind === 'session' ? 'sessionId' : 'userId'}`
      : `${list.rows.length}${list.hasMore ? '+' : ''} ${noun}, most recently active first`;
  return (
    <Rows height={height} width={width}>
      <MessageLine key="m" error={list.error} note={note} width={width} />
      <Line key="h" text={groupHeaderRow(kind, width)} width={width} dim />
      {...visibleRows(list.rows, shown, rowsHeight).map((g, i) => {
        const selected = shown.top + i === shown.index;
        return <Line key={g.id} text={groupRow(kind, g, selected, width, now)} width={width} selected={selected} />;
      })}
    </Rows>
  );
}

interface ViewProps extends ProjectScreenProps {
  kind: GroupKind;
  id: string;
  onOpenTrace: (traceId: string) => void;
}

/** Space kept under a group's traces for the selected trace's turns. */
const TURN_LINES = 8;

/**
 * One session (its traces in time order, the selected one's input and output as turns below:
 * the conversation) or one user (their traces, newest first), with the totals on top.
 */
export function GroupView({ kind, rpc, projectId, id, width, height, pollMs, onOpenTrace, onBack }: ViewProps) {
  const { useInput } = ink();
  const totals = usePolling<GroupSummary>(
    () => (kind === 'session' ? rpc.session(projectId, id, 1) : rpc.user(projectId, id)),
    pollMs,
    `${kind}/${projectId}/${id}`,
  );
  const traces = usePagedList<TraceSummary>(
    (cursor) =>
      kind === 'session'
        ? rpc.session(projectId, id, PAGE_SIZE, cursor).then((s) => ({ data: s.traces, meta: s.meta }))
        : rpc.traces(projectId, { userId: id }, PAGE_SIZE, cursor),
    pollMs,
    `${kind}-traces/${projectId}/${id}`,
  );
  const [selection, setSelection, selectionRef] = useSyncState<ListState>(EMPTY_LIST);
  const withTurns = height >= 14;
  const rowsHeight = height - 3 - (withTurns ? TURN_LINES + 1 : 0);
  const shown = clampList(selection, traces.rows.length, rowsHeight);
  const rowsRef = useRef(traces.rows);
  rowsRef.current = traces.rows;
  useInput((input, key) => {
    const action = actionFor(input, key);
    if (action.kind === 'move') {
      const next = moveSelection(selectionRef.current, action.move, rowsRef.current.length, rowsHeight);
      setSelection(next);
      if (next.index >= rowsRef.current.length - 1) traces.loadMore();
    } else if (action.kind === 'open') {
      const row = rowsRef.current[clampList(selectionRef.current, rowsRef.current.length, rowsHeight).index];
      if (row) onOpenTrace(row.id);
    } else if (action.kind === 'back') onBack();
  });
  const now = new Date();
  const selected = traces.rows[shown.index];
  const turns = selected ? traceTurnLines(selected) : [];
  const title = `${kind === 'session' ? 'session' : 'user'} ${id}`;
  return (
    <Rows height={height} width={width}>
      <Line key="t" text={title} width={width} bold />
      <MessageLine
        key="m"
        error={totals.error ?? traces.error}
        note={totals.data ? groupTotalsLine(kind, totals.data, now) : 'loading…'}
        width={width}
      />
      <Line key="h" text={traceHeaderRow(width)} width={width} dim />
      {...visibleRows(traces.rows, shown, rowsHeight).map((t, i) => {
        const isSelected = shown.top + i === shown.index;
        return <Line key={t.id} text={traceRow(t, isSelected, width, now)} width={width} selected={isSelected} />;
      })}
      {...Array.from({ length: Math.max(0, rowsHeight - Math.max(0, traces.rows.length - shown.top)) }, (_, i) => (
        <Line key={`pad${i}`} text="" width={width} />
      ))}
      {...withTurns && selected
        ? [
            <Line key="th" text={`── ${selected.name ?? '(unnamed)'} ${'─'.repeat(width)}`} width={width} dim />,
            ...Array.from({ length: TURN_LINES }, (_, i) => (
              <Line key={`turn${i}`} text={turns[i] ?? (i === 0 && turns.length === 0 ? '  no input or output' : '')} width={width} />
            )),
          ]
        : []}
    </Rows>
  );
}
