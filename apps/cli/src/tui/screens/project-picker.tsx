import { useEffect, useRef } from 'react';
import { usePolling, useSyncState } from '../hooks';
import { ink } from '../ink';
import { actionFor } from '../keys';
import { EMPTY_LIST, type ListState, clampList, moveSelection, visibleRows } from '../list-state';
import { startingProject } from '../../last-project';
import type { ProjectChoice, SpanlogRpc } from '../spanlog-rpc';
import { fit } from '../text';
import { Line, MessageLine, Rows } from '../widgets';

interface Props {
  rpc: SpanlogRpc;
  width: number;
  height: number;
  pollMs: number;
  /** `--project`: opened as soon as the list shows it. */
  preselect?: string;
  /** The project last opened: opened at once when the user has several (the only one always is). */
  lastProjectId: string | null;
  /** Whether to open a project without asking: only at start; back on this list later (Esc), the user is choosing. */
  autoOpen: boolean;
  onPick: (choice: ProjectChoice) => void;
}

export const PROJECT_PICKER_HELP = '↑↓ choose · Enter open · q quit';

export function ProjectPicker({ rpc, width, height, pollMs, preselect, lastProjectId, autoOpen, onPick }: Props) {
  const { useInput } = ink();
  // Read again like the other screens: a project created meanwhile appears, and a failed read is retried.
  const { data, error } = usePolling(() => rpc.projects(), pollMs, 'projects');
  const [list, setList, listRef] = useSyncState<ListState>(EMPTY_LIST);
  const choices = data ?? [];
  const rowsHeight = height - 2;
  const shown = clampList(list, choices.length, rowsHeight);
  const preselected = useRef(false);
  const missing = preselect !== undefined && data !== undefined && !choices.some((c) => c.project.id === preselect);

  useEffect(() => {
    if (!autoOpen || !data || preselected.current) return;
    preselected.current = true;
    const start = startingProject(data, preselect, lastProjectId);
    if (start) onPick(start.choice);
  }, [autoOpen, data, preselect, lastProjectId, onPick]);

  useInput((input, key) => {
    const action = actionFor(input, key);
    const current = clampList(listRef.current, choices.length, rowsHeight);
    if (action.kind === 'move') setList(moveSelection(current, action.move, choices.length, rowsHeight));
    else if (action.kind === 'open' && choices[current.index]) onPick(choices[current.index]);
  });

  const note = missing
    ? `--project ${preselect}: none of your projects has this id; choose one`
    : data === undefined
      ? 'loading projects…'
      : choices.length === 0
        ? 'you belong to no project yet: create one with spanlog projects or the dashboard'
        : 'Choose a project';
  const orgWidth = Math.min(28, Math.floor(width / 3));
  return (
    <Rows height={height} width={width}>
      <MessageLine key="message" error={error} note={note} width={width} />
      <Line key="header" text={`  ${fit('ORGANIZATION', orgWidth)} PROJECT`} width={width} dim />
      {visibleRows(choices, shown, rowsHeight).map((c, i) => (
        <Line
          key={c.project.id}
          text={`${shown.top + i === shown.index ? '›' : ' '} ${fit(`${c.org.name} (${c.org.plan})`, orgWidth)} ${c.project.name}`}
          width={width}
          selected={shown.top + i === shown.index}
        />
      ))}
    </Rows>
  );
}
