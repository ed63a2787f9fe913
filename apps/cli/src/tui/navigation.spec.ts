import { START, currentScreen, navigate, sectionOf } from './navigation';
import type { ProjectChoice } from './spanlog-rpc';

const project: ProjectChoice = {
  project: { id: 'p1', name: 'proj', orgId: 'o1' },
  org: { id: 'o1', name: 'Org', plan: 'free', role: 'owner' },
};

describe(navigate.name, () => {
  it('opens a project on its trace list and goes back to the picker with Esc', () => {
    const opened = navigate(START, { kind: 'pickProject', project });
    expect(currentScreen(opened)).toEqual({ kind: 'traces' });
    const trace = navigate(opened, { kind: 'openTrace', traceId: 't1' });
    expect(currentScreen(trace)).toEqual({ kind: 'trace', traceId: 't1' });
    expect(navigate(trace, { kind: 'back' })).toEqual(opened);
    expect(currentScreen(navigate(opened, { kind: 'back' }))).toEqual({ kind: 'projects' });
    expect(navigate(START, { kind: 'back' })).toEqual(START);
  });

  it('switches sections with Tab either way, from a trace too', () => {
    const opened = navigate(START, { kind: 'pickProject', project });
    expect(currentScreen(navigate(opened, { kind: 'cycle', step: 1 }))).toEqual({ kind: 'keys' });
    expect(currentScreen(navigate(opened, { kind: 'cycle', step: -1 }))).toEqual({ kind: 'users' });
    const trace = navigate(opened, { kind: 'openTrace', traceId: 't1' });
    expect(navigate(trace, { kind: 'cycle', step: 1 }).stack).toEqual([{ kind: 'projects' }, { kind: 'keys' }]);
    expect(currentScreen(navigate(opened, { kind: 'section', section: 'usage' }))).toEqual({ kind: 'usage' });
  });

  it('opens a session or a user from its list, a trace from there, and Esc walks back the same way', () => {
    const sessions = navigate(navigate(START, { kind: 'pickProject', project }), { kind: 'section', section: 'sessions' });
    const session = navigate(sessions, { kind: 'openSession', sessionId: 'chat-42' });
    expect(currentScreen(session)).toEqual({ kind: 'session', sessionId: 'chat-42' });
    expect(sectionOf(currentScreen(session))).toBe('sessions');
    const trace = navigate(session, { kind: 'openTrace', traceId: 't1' });
    expect(navigate(trace, { kind: 'back' })).toEqual(session);
    expect(navigate(session, { kind: 'back' })).toEqual(sessions);
    const user = navigate(navigate(sessions, { kind: 'section', section: 'users' }), { kind: 'openUser', userId: 'ada' });
    expect(currentScreen(user)).toEqual({ kind: 'user', userId: 'ada' });
    expect(sectionOf(currentScreen(user))).toBe('users');
    expect(navigate(START, { kind: 'openSession', sessionId: 's' })).toEqual(START);
  });

  it('opens nothing of a project before one is picked', () => {
    expect(navigate(START, { kind: 'section', section: 'keys' })).toEqual(START);
    expect(navigate(START, { kind: 'cycle', step: 1 })).toEqual(START);
    expect(navigate(START, { kind: 'openTrace', traceId: 't' })).toEqual(START);
  });
});
