import { usePolling, useSyncState } from '../hooks';
import { ink } from '../ink';
import { actionFor } from '../keys';
import { EMPTY_LIST, type ListState, clampList, moveSelection, visibleRows } from '../list-state';
import { monitorHeaderRow, monitorHistoryRow, monitorRow, monitorStateText } from '../rows';
import { Line, MessageLine, Rows } from '../widgets';
import type { ProjectScreenProps } from './screen-props';

type Props = ProjectScreenProps;

export const MONITORS_HELP = '↑↓ move · Esc back · Tab screens · q quit';

const STATE_COLOR: Record<string, string> = { OK: 'green', ALERT: 'red', NO_DATA: 'yellow' };

/** The selected monitor's latest changes of state, under the list when the terminal has room. */
const HISTORY_LINES = 4;
const MIN_HEIGHT_FOR_HISTORY = 12;

export function Monitors({ rpc, projectId, width, height, pollMs, onBack }: Props) {
  const { useInput } = ink();
  const { data, error } = usePolling(() => rpc.monitors(projectId), pollMs, `monitors/${projectId}`);
  const [list, setList, listRef] = useSyncState<ListState>(EMPTY_LIST);
  const monitors = data ?? [];
  const withHistory = monitors.length > 0 && height >= MIN_HEIGHT_FOR_HISTORY;
  const rowsHeight = height - 2 - (withHistory ? HISTORY_LINES + 1 : 0);
  const shown = clampList(list, monitors.length, rowsHeight);
  const selected = withHistory ? monitors[shown.index] : undefined;
  const history = usePolling(
    () => (selected ? rpc.monitorHistory(projectId, selected.id) : Promise.resolve(null)),
    pollMs,
    `monitor-history/${projectId}/${selected?.id ?? ''}`,
  );
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
  const note =
    data === undefined
      ? 'loading monitors…'
      : monitors.length === 0
        ? 'no monitors in this project (spanlog alerts, or the dashboard, creates them)'
        : counts;
  const now = new Date();
  const changes = history.data?.data.slice(0, HISTORY_LINES) ?? [];
  const historyNote = history.error ?? (history.data === undefined ? 'loading…' : changes.length === 0 ? 'no evaluation yet' : null);
  return (
    <Rows height={height} width={width}>
      <MessageLine key="m" error={error} note={note} width={width} />
      <Line key="h" text={monitorHeaderRow(width)} width={width} dim />
      {...visibleRows(monitors, shown, rowsHeight).map((m, i) => {
        const isSelected = shown.top + i === shown.index;
        return (
          <Line
            key={m.id}
            text={monitorRow(m, isSelected, width, now)}
            width={width}
            selected={isSelected}
            color={m.enabled && m.state ? STATE_COLOR[m.state] : undefined}
            dim={!m.enabled && !isSelected}
          />
        );
      })}
      {...Array.from({ length: Math.max(0, rowsHeight - Math.max(0, monitors.length - shown.top)) }, (_, i) => (
        <Line key={`pad${i}`} text="" width={width} />
      ))}
      {...selected
        ? [
            <Line key="hh" text={`── history of ${selected.name} ${'─'.repeat(width)}`} width={width} dim />,
            ...Array.from({ length: HISTORY_LINES }, (_, i) => {
              const change = changes[i];
              const text = change ? monitorHistoryRow(change, width, now) : i === 0 && historyNote ? `  ${historyNote}` : '';
              return (
                <Line
                  key={`h${i}`}
                  text={text}
                  width={width}
                  color={change ? STATE_COLOR[change.state] : history.error ? 'red' : undefined}
                />
              );
            }),
          ]
        : []}
    </Rows>
  );
}
