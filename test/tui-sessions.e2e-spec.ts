import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { send } from './support/api';
import { NATIVE_TRACES, write } from './support/ingest';
import { ROOT } from './support/stack';
import { TmuxPane, useTuiSpec } from './support/tmux';

// Issue 26 in the TUI: the sessions and users screens list them, and opening one shows its
// traces with the selected trace's turns (a session reads as its conversation).

const EMAIL = 'tui-sessions@spanlog.test';
const CLI = resolve(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');

describe('spanlog tui: sessions and users (tmux, 80×24)', () => {
  const term = useTuiSpec(EMAIL, 'Tui Sessions Org', 'tui sessions');
  const run = randomUUID().slice(0, 8);
  const sessionId = `chat-${run}`;
  const userId = `ada-${run}`;

  beforeAll(async () => {
    const t0 = Date.now() - 5 * 60_000;
    const at = (s: number) => new Date(t0 + s * 1000).toISOString();
    const batch = [0, 1, 2].map((i) => ({
      id: randomUUID(),
      type: 'trace-create',
      timestamp: at(i * 60),
      body: {
        id: `${sessionId}-${i}`,
        name: `turn ${i + 1} ${run}`,
        sessionId,
        userId,
        timestamp: at(i * 60),
        input: [{ role: 'user', content: `question ${i + 1}` }],
        output: { role: 'assistant', content: `answer ${i + 1}` },
      },
    }));
    const sent = await write(term.stack, term.tenant.apiKey, NATIVE_TRACES, { batch });
    expect((await send(term.stack, 'GET', `/api/v1/sessions/${sessionId}?minSeq=${sent.seq}`, { token: term.tenant.apiKey })).status).toBe(
      200,
    );
  }, 120_000);

  it('lists sessions and users, opens one as its traces with the selected trace’s turns, and goes back with Esc', async () => {
    term.pane = TmuxPane.start(
      `node ${CLI} tui --project ${term.tenant.projectId} --interval 500; echo "tui exited $?"; sleep 60`,
      term.env,
      term.dir,
    );
    const tui = term.pane;
    await tui.waitForText('[Traces]');
    tui.keys('s');
    const sessions = await tui.waitFor('the session listed', (s) => s.some((l) => l.startsWith('›') && l.includes(sessionId)));
    expect(sessions.some((l) => l.includes('[Sessions]'))).toBe(true);
    expect(sessions.find((l) => l.startsWith('›'))).toMatch(new RegExp(`${sessionId} +3 +2m 00s`));
    tui.keys('Enter');
    // The totals line loads on its own request, after or before the traces: wait for both.
    const opened = await tui.waitFor(
      'the session’s totals, traces and the first one’s turns',
      (s) =>
        s.some((l) => l.includes(`session ${sessionId}`)) &&
        s.some((l) => l.includes('question 1')) &&
        s.some((l) => l.includes('answer 1')) &&
        !s.some((l) => l.includes('loading…')),
    );
    expect(opened.some((l) => l.includes('3 traces · lasting 2m 00s'))).toBe(true);
    const names = opened.filter((l) => l.includes(`turn `) && l.includes(run) && !l.startsWith('──')).map((l) => /turn \d/.exec(l)?.[0]);
    expect(names).toEqual(['turn 1', 'turn 2', 'turn 3']);
    tui.keys('Down');
    await tui.waitFor('the second trace’s turns', (s) => s.some((l) => l.includes('question 2')) && s.some((l) => l.includes('answer 2')));
    tui.keys('Enter');
    await tui.waitFor('the trace opened', (s) => s.some((l) => l.includes(`turn 2 ${run}`)) && s.some((l) => l.includes('[Traces]')));
    tui.keys('Escape');
    await tui.waitForText(`session ${sessionId}`);
    tui.keys('U');
    await tui.waitFor(
      'the user listed',
      (s) => s.some((l) => l.includes('[Users]')) && s.some((l) => l.startsWith('›') && l.includes(userId)),
    );
    tui.keys('Enter');
    const user = await tui.waitFor(
      'the user’s traces, newest first',
      (s) =>
        s.some((l) => l.includes(`user ${userId}`)) && s.some((l) => l.includes('question 3')) && !s.some((l) => l.includes('loading…')),
    );
    expect(user.some((l) => l.includes('3 traces · 1 sessions'))).toBe(true);
    tui.keys('q');
    await tui.waitForText('tui exited 0');
  }, 120_000);
});
