import { useCallback, useReducer, useRef } from 'react';
import { useSyncState, useTerminalSize } from './hooks';
import { ink } from './ink';
import { actionFor } from './keys';
import { SECTIONS, type Screen, type Section, START, currentScreen, navigate, sectionOf } from './navigation';
import { GROUP_LIST_HELP, GROUP_VIEW_HELP, GroupList, GroupView } from './screens/groups';
import { KEYS_HELP, Keys } from './screens/keys';
import { MONITORS_HELP, Monitors } from './screens/monitors';
import { PROJECT_PICKER_HELP, ProjectPicker } from './screens/project-picker';
import { TRACE_LIST_HELP, TraceList, type TraceListMemory } from './screens/trace-list';
import { TRACE_VIEW_HELP, TraceView } from './screens/trace-view';
import { USAGE_HELP, Usage } from './screens/usage';
import type { ProjectChoice, SpanlogRpc } from './spanlog-rpc';
import { displayWidth } from './text';
import { Line } from './widgets';

export interface AppProps {
  rpc: SpanlogRpc;
  /** How often live screens read again, in milliseconds. */
  pollMs: number;
  /** `--project`: open this project at once. */
  projectId?: string;
  /** The project opened last time, opened at once (the user's only project always is). */
  lastProjectId: string | null;
  /** Told of every project opened, to remember it for next time. */
  onProjectOpened: (project: ProjectChoice) => void;
}

/** The letter that opens each section from anywhere inside a project. */
export const SECTION_KEYS: Record<string, Section> = { t: 'traces', k: 'keys', u: 'usage', m: 'monitors', s: 'sessions', U: 'users' };

const TITLES: Record<Section, string> = {
  traces: 'Traces',
  keys: 'Keys',
  usage: 'Usage',
  monitors: 'Monitors',
  sessions: 'Sessions',
  users: 'Users',
};

function helpFor(screen: Screen): string {
  switch (screen.kind) {
    case 'projects':
      return PROJECT_PICKER_HELP;
    case 'traces':
      return TRACE_LIST_HELP;
    case 'trace':
      return TRACE_VIEW_HELP;
    case 'keys':
      return KEYS_HELP;
    case 'usage':
      return USAGE_HELP;
    case 'monitors':
      return MONITORS_HELP;
    case 'sessions':
    case 'users':
      return GROUP_LIST_HELP;
    case 'session':
    case 'user':
      return GROUP_VIEW_HELP;
  }
}

/** The project and every section, the current one in brackets; only the current one when all do not fit the width. */
export function titleLine(project: ProjectChoice | null, section: Section | null, width: number): string {
  if (!project || section === null) return 'spanlog · projects';
  const head = `spanlog · ${project.org.name} / ${project.project.name}  `;
  const tabs = SECTIONS.map((s) => (s === section ? `[${TITLES[s]}]` : ` ${TITLES[s]} `)).join('');
  return displayWidth(head + tabs) <= width ? head + tabs : `${head}[${TITLES[section]}]`;
}

export function App({ rpc, pollMs, projectId, lastProjectId, onProjectOpened }: AppProps) {
  const { Box, useInput, useApp } = ink();
  const { exit } = useApp();
  const { columns, rows } = useTerminalSize();
  const [nav, dispatch] = useReducer(navigate, START);
  // While a screen's prompt is open its keys are text, not commands.
  const [, setCapturing, capturing] = useSyncState(false);
  const screen = currentScreen(nav);
  const back = useCallback(() => dispatch({ kind: 'back' }), []);
  const traceListMemory = useRef<TraceListMemory>({ filter: {}, selectedId: undefined });
  // Set once a project is open: from then on the picker only offers.
  const opened = useRef(false);
  const pick = useCallback(
    (project: ProjectChoice) => {
      opened.current = true;
      traceListMemory.current = { filter: {}, selectedId: undefined };
      dispatch({ kind: 'pickProject', project });
      onProjectOpened(project);
    },
    [onProjectOpened],
  );

  useInput((input, key) => {
    if (capturing.current) return;
    const action = actionFor(input, key);
    if (action.kind === 'quit') exit();
    else if (action.kind === 'nextScreen') dispatch({ kind: 'cycle', step: action.step });
    else if (action.kind === 'letter' && SECTION_KEYS[action.letter]) dispatch({ kind: 'section', section: SECTION_KEYS[action.letter] });
  });

  const width = Math.max(20, columns);
  // One line short of the terminal: Ink clears the whole screen on every frame as tall as it.
  const bodyHeight = Math.max(3, rows - 3);
  const project = nav.project;
  const body = (() => {
    if (screen.kind === 'projects' || !project)
      return (
        <ProjectPicker
          rpc={rpc}
          width={width}
          height={bodyHeight}
          pollMs={pollMs}
          preselect={projectId}
          lastProjectId={lastProjectId}
          autoOpen={!opened.current}
          onPick={pick}
        />
      );
    const projectKey = project.project.id;
    switch (screen.kind) {
      case 'traces':
        return (
          <TraceList
            key={projectKey}
            rpc={rpc}
            memory={traceListMemory.current}
            projectId={projectKey}
            width={width}
            height={bodyHeight}
            pollMs={pollMs}
            setCapturing={setCapturing}
            onOpen={(traceId) => dispatch({ kind: 'openTrace', traceId })}
            onBack={back}
          />
        );
      case 'trace':
        return (
          <TraceView
            key={screen.traceId}
            rpc={rpc}
            projectId={projectKey}
            traceId={screen.traceId}
            width={width}
            height={bodyHeight}
            pollMs={pollMs}
            onBack={back}
          />
        );
      case 'keys':
        return (
          <Keys
            key={projectKey}
            rpc={rpc}
            projectId={projectKey}
            width={width}
            height={bodyHeight}
            pollMs={pollMs}
            setCapturing={setCapturing}
            onBack={back}
          />
        );
      case 'usage':
        return (
          <Usage
            key={projectKey}
            rpc={rpc}
            orgId={project.org.id}
            orgName={project.org.name}
            width={width}
            height={bodyHeight}
            pollMs={pollMs}
            onBack={back}
          />
        );
      case 'monitors':
        return (
          <Monitors key={projectKey} rpc={rpc} projectId={projectKey} width={width} height={bodyHeight} pollMs={pollMs} onBack={back} />
        );
      case 'sessions':
        return (
          <GroupList
            key={`sessions/${projectKey}`}
            kind="session"
            rpc={rpc}
            projectId={projectKey}
            width={width}
            height={bodyHeight}
            pollMs={pollMs}
            onOpen={(sessionId) => dispatch({ kind: 'openSession', sessionId })}
            onBack={back}
          />
        );
      case 'users':
        return (
          <GroupList
            key={`users/${projectKey}`}
            kind="user"
            rpc={rpc}
            projectId={projectKey}
            width={width}
            height={bodyHeight}
            pollMs={pollMs}
            onOpen={(userId) => dispatch({ kind: 'openUser', userId })}
            onBack={back}
          />
        );
      case 'session':
        return (
          <GroupView
            key={`session/${screen.sessionId}`}
            kind="session"
            rpc={rpc}
            projectId={projectKey}
            id={screen.sessionId}
            width={width}
            height={bodyHeight}
            pollMs={pollMs}
            onOpenTrace={(traceId) => dispatch({ kind: 'openTrace', traceId })}
            onBack={back}
          />
        );
      case 'user':
        return (
          <GroupView
            key={`user/${screen.userId}`}
            kind="user"
            rpc={rpc}
            projectId={projectKey}
            id={screen.userId}
            width={width}
            height={bodyHeight}
            pollMs={pollMs}
            onOpenTrace={(traceId) => dispatch({ kind: 'openTrace', traceId })}
            onBack={back}
          />
        );
    }
  })();

  return (
    <Box flexDirection="column" width={width} height={bodyHeight + 2}>
      <Line text={titleLine(project, sectionOf(screen), width)} width={width} bold />
      {body}
      <Line text={helpFor(screen)} width={width} dim />
    </Box>
  );
}
