import type { ProjectChoice } from './spanlog-rpc';

/** The screens of a project, in the order Tab goes through them. */
export const SECTIONS = ['traces', 'keys', 'usage', 'monitors', 'sessions', 'users'] as const;
export type Section = (typeof SECTIONS)[number];

export type Screen =
  | { kind: 'projects' }
  | { kind: Section }
  | { kind: 'trace'; traceId: string }
  | { kind: 'session'; sessionId: string }
  | { kind: 'user'; userId: string };

/** The screens walked into, the last one shown; the project picker is always at the bottom. */
export interface Navigation {
  project: ProjectChoice | null;
  stack: Screen[];
}

export type NavAction =
  | { kind: 'pickProject'; project: ProjectChoice }
  | { kind: 'openTrace'; traceId: string }
  | { kind: 'openSession'; sessionId: string }
  | { kind: 'openUser'; userId: string }
  | { kind: 'section'; section: Section }
  | { kind: 'cycle'; step: 1 | -1 }
  | { kind: 'back' };

export const START: Navigation = { project: null, stack: [{ kind: 'projects' }] };

export const currentScreen = (nav: Navigation): Screen => nav.stack[nav.stack.length - 1];

/** The section a screen belongs to (a trace belongs to the trace list), or null for the picker. */
export function sectionOf(screen: Screen): Section | null {
  switch (screen.kind) {
    case 'projects':
      return null;
    case 'trace':
      return 'traces';
    case 'session':
      return 'sessions';
    case 'user':
      return 'users';
    case 'traces':
    case 'keys':
    case 'usage':
    case 'monitors':
    case 'sessions':
    case 'users':
      return screen.kind;
  }
}

export function navigate(nav: Navigation, action: NavAction): Navigation {
  switch (action.kind) {
    case 'pickProject':
      return { project: action.project, stack: [{ kind: 'projects' }, { kind: 'traces' }] };
    case 'openTrace':
      return nav.project ? { ...nav, stack: [...nav.stack, { kind: 'trace', traceId: action.traceId }] } : nav;
    case 'openSession':
      return nav.project ? { ...nav, stack: [...nav.stack, { kind: 'session', sessionId: action.sessionId }] } : nav;
    case 'openUser':
      return nav.project ? { ...nav, stack: [...nav.stack, { kind: 'user', userId: action.userId }] } : nav;
    case 'section':
      return nav.project ? { ...nav, stack: [{ kind: 'projects' }, { kind: action.section }] } : nav;
    case 'cycle': {
      const section = sectionOf(currentScreen(nav));
      if (!nav.project || section === null) return nav;
      const next = SECTIONS[(SECTIONS.indexOf(section) + action.step + SECTIONS.length) % SECTIONS.length];
      return { ...nav, stack: [{ kind: 'projects' }, { kind: next }] };
    }
    case 'back':
      return nav.stack.length > 1 ? { ...nav, stack: nav.stack.slice(0, -1) } : nav;
  }
}
