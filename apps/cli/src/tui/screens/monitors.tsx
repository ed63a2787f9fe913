import { usePolling, useSyncState } from '../hooks';
import { ink } from '../ink';
import { actionFor } from '../keys';
import { EMPTY_LIST, type ListState, clampList, moveSelection, visibleRows } from '../list-state';
import { monitorHeaderRow, monitorRow, monitorStateText } from '../rows';
import type { SpanlogRpc } from '../spanlog-rpc';
import { Line, MessageLine, Rows } from '../widgets';

interface Props {
  rpc: SpanlogRpc;
  projectId: string;
  width: number;
  height: number;
  pollMs: number;
  onBack: () => void;
}

export const MONITORS_HELP = '↑↓ move · Esc back · Tab screens · q quit';

const STATE_COLOR: Record<string, string> = { OK: 'green', ALERT: 'red', NO_DATA: 'yellow' };

export function Monitors({ rpc, projectId, width, height, pollMs, onBack }: Props) {
  const { useInput } = ink();
  const { data, error } = usePolling(() => rpc.monitors(projectId), pollMs, `monitors/${projectId}`);
  const [list, setList, listRef] = useSyncState<ListState>(EMPTY_LIST);
  const monitors = data ?? [];
  const rowsHeight = height - 2;
  const shown = clampList(list, monitors.length, rowsHeight);
  useInput((input, key) => {
    const action = actionFor(input, key);
    if (action.kind === 'move') setList(moveSelection(listRef.current, action.move, monitors.length, rowsHeight));
    else if (action.kind === 'back') onBack();
  });
  const counts = ['ALERT', 'NO_DATA', 'OK', 'PENDING', 'OFF']
    .map((state) => [state, monitors.filter((m) => monitorStateText(m) === state).length] as const)
    .filter(([, n]) => n > 0)
    .map(([state, n]) => `${n} ${state}`)
    .join(' · ');
  const note = data === undefined ? 'loading monitors…' : monitors.length === 0 ? 'no monitors in this project (spanlog alerts, or the dashboard, creates them)' : `${counts} · evaluated every minute`;
  const now = new Date();
  return (
    <Rows height={height} width={width}>
      <MessageLine key="m" error={error} note={note} width={width} />
      <Line key="h" text={monitorHeaderRow(width)} width={width} dim />
      {...visibleRows(monitors, shown, rowsHeight).map((m, i) => {
        const selected = shown.top + i === shown.index;
        return <Line key={m.id} text={monitorRow(m, selected, width, now)} width={width} selected={selected} color={m.enabled && m.state ? STATE_COLOR[m.state] : undefined} dim={!m.enabled && !selected} />;
      })}
    </Rows>
  );
}
