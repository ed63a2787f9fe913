import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { data, eventually, login, mutate, send } from './support/api';
import { ROOT, runCli } from './support/stack';
import { TmuxPane, useTuiSpec } from './support/tmux';

const EMAIL = 'tui@spanlog.test';
const CLI = resolve(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');

/** The selected row of a list: the one the TUI marks with "›". */
const selectedLine = (screen: string[]) => screen.find((line) => line.startsWith('›')) ?? '';

describe('spanlog tui in an 80×24 terminal (tmux)', () => {
  // Monitors evaluated every second over the 5-minute bucket still filling (as monitors.e2e-spec.ts).
  const term = useTuiSpec(EMAIL, 'Tui Org', 'tui project', { SPANLOG_MONITOR_INTERVAL_MS: '1000', SPANLOG_MONITOR_SETTLE_MS: '-300000' });
  const run = randomUUID().slice(0, 8);
  const traceName = `checkout ${run}`;
  const userId = `shopper-${run}`;

  /** Every screen keeps its help line at the bottom and no line wider than the terminal. */
  const expectTidy = (screen: string[]) => {
    expect(screen.length).toBeLessThanOrEqual(24);
    for (const line of screen) expect([...line].length).toBeLessThanOrEqual(80);
    expect(screen.some((line) => line.includes('q quit'))).toBe(true);
  };

  const ingest = (apiKey: string, batch: unknown[]) => send(term.stack, 'POST', '/api/v1/traces', { token: apiKey, body: { batch } });

  it('refuses to start without a terminal, pointing to the plain commands, with exit code 2', async () => {
    const res = await runCli(['tui'], term.env);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(
      /needs a terminal.*spanlog traces list.*spanlog keys list.*spanlog usage.*spanlog projects.*spanlog alerts list/,
    );
  });

  it('opens, shows an ingested trace and its span tree, creates a key that ingests, revokes it (401), shows a monitor made over RPC in ALERT with its history, and quits cleanly', async () => {
    const at = new Date(Date.now() - 1000).toISOString();
    const later = new Date().toISOString();
    const traceId = `tui-${run}`;
    const ingested = await ingest(term.tenant.apiKey, [
      { id: randomUUID(), type: 'trace-create', timestamp: at, body: { id: traceId, name: traceName, userId, tags: ['prod'] } },
      {
        id: randomUUID(),
        type: 'span-create',
        timestamp: at,
        body: { id: `${traceId}-root`, traceId, name: 'agent', type: 'AGENT', startTime: at, endTime: later },
      },
      {
        id: randomUUID(),
        type: 'generation-create',
        timestamp: at,
        body: {
          id: `${traceId}-llm`,
          traceId,
          parentObservationId: `${traceId}-root`,
          name: 'llm call',
          model: 'gpt-4o-mini',
          startTime: at,
          endTime: later,
          usage: { input: 120, output: 45 },
          cost: 0.0012,
          input: [{ role: 'user', content: 'where is my parcel' }],
          output: 'on its way',
        },
      },
      {
        id: randomUUID(),
        type: 'span-create',
        timestamp: at,
        body: {
          id: `${traceId}-tool`,
          traceId,
          parentObservationId: `${traceId}-root`,
          name: 'lookup tool',
          type: 'TOOL',
          startTime: later,
        },
      },
      { id: randomUUID(), type: 'trace-create', timestamp: at, body: { id: `other-${run}`, name: `other ${run}`, userId: 'someone-else' } },
    ]);
    expect(ingested.status).toBe(201);
    expect(ingested.body).toEqual({ accepted: 5, errors: [] });
    // A monitor made over RPC, which the llm call (about 1 s) puts in ALERT; the monitors screen shows it below
    // (its name cut to the column; whole in the history's title).
    const session = await login(term.stack, EMAIL);
    const monitorName = `slow llm ${run}`;
    data(
      await mutate(term.stack, session.access_token, 'monitor.create', {
        projectId: term.tenant.projectId,
        name: monitorName,
        metric: 'latency_p95',
        filter: { model: 'gpt-4o-mini' },
        windowSeconds: 600,
        comparison: '>',
        threshold: 100,
      }),
    );

    term.pane = TmuxPane.start(
      `printf 'before the tui\\n'; node ${CLI} tui --interval 500; echo "tui exited $?"; sleep 120`,
      term.env,
      term.dir,
    );
    const tui = term.pane;

    // The user's only project: it opens straight on its traces, no picker first.
    const listed = await tui.waitFor(
      'both traces',
      (s) => s.some((l) => l.includes(traceName)) && s.some((l) => l.includes(`other ${run}`)),
    );
    expect(tui.display('#{alternate_on}')).toBe('1');
    expect(listed[0]).toContain('Tui Org / tui project  [Traces]');
    expect(listed.some((l) => l.includes('Choose a project'))).toBe(false);

    // The live trace list fills; / filters it by user.
    expectTidy(listed);
    const selectedBefore = selectedLine(listed).includes(traceName) ? traceName : `other ${run}`;

    // A trace that arrives while the list is shown appears on top; the selection stays on its trace.
    const late = await ingest(term.tenant.apiKey, [
      {
        id: randomUUID(),
        type: 'trace-create',
        timestamp: new Date(Date.now() + 1000).toISOString(),
        body: { id: `late-${run}`, name: `late ${run}` },
      },
    ]);
    expect(late.status).toBe(201);
    const arrived = await tui.waitForText(`late ${run}`);
    expect(arrived.findIndex((l) => l.includes(`late ${run}`))).toBeLessThan(arrived.findIndex((l) => l.includes(traceName)));
    expect(selectedLine(arrived)).toContain(selectedBefore);
    tui.keys('/');
    await tui.waitForText('Enter apply');
    await tui.submit(`user:${userId}`);
    const filtered = await tui.waitFor(
      'the filtered list',
      (s) => s.some((l) => l.includes(`filter user:${userId}`)) && !s.some((l) => l.includes(`other ${run}`) || l.includes(`late ${run}`)),
    );
    expect(selectedLine(filtered)).toContain(traceName);

    // The trace: its span tree with durations, model, tokens and cost; the selected span's input and output.
    tui.keys('Enter');
    const tree = await tui.waitForText('├─llm call');
    expectTidy(tree);
    expect(tree.find((l) => l.includes('├─llm call'))).toMatch(/LLM\s+\d[\d.]* (ms|s)\s+gpt-4o-mini\s+120→45\s+\$0\.0012/);
    expect(tree.some((l) => l.includes('└─lookup tool'))).toBe(true);
    tui.keys('Down');
    const preview = await tui.waitFor(
      'the llm span selected',
      (s) => selectedLine(s).includes('llm call') && s.some((l) => l.includes('where is my parcel')),
    );
    expect(preview.some((l) => l.includes('on its way'))).toBe(true);
    tui.keys('Escape');
    await tui.waitForText(`filter user:${userId}`);

    // API keys: a new one, its secret shown once, which then ingests.
    tui.keys('k');
    await tui.waitForText('n new key');
    tui.keys('n');
    await tui.waitForText('Name of the new key');
    const keyName = `tui key ${run}`;
    await tui.submit(keyName);
    const shown = await tui.waitForText('copy it now');
    const secret = shown.join('\n').match(/sl_[A-Za-z0-9_-]{20,}/)?.[0];
    expect(secret).toBeDefined();
    const accepted = await ingest(secret as string, [
      {
        id: randomUUID(),
        type: 'trace-create',
        timestamp: new Date().toISOString(),
        body: { id: `by-new-key-${run}`, name: 'via the new key' },
      },
    ]);
    expect(accepted.status).toBe(201);
    tui.keys('Enter');
    await tui.waitForText(`key ${keyName}`);
    expect(tui.screen().join('\n')).not.toContain(secret);

    // Revoke it: the key is refused from then on.
    await tui.waitFor(`${keyName} selected`, (s) => {
      if (selectedLine(s).includes(keyName)) return true;
      tui.keys('Down');
      return false;
    });
    tui.keys('r');
    await tui.waitForText('y/n: revoke');
    tui.keys('y');
    await tui.waitForText('revoked: it is refused from now on');
    // The list is fetched again after the answer that shows the message: a render later.
    await tui.waitFor('the key listed as revoked', (s) => /revoked\s*$/.test(selectedLine(s)));
    expect(selectedLine(tui.screen())).toMatch(/revoked\s*$/);
    await eventually(
      () =>
        ingest(secret as string, [
          {
            id: randomUUID(),
            type: 'trace-create',
            timestamp: new Date().toISOString(),
            body: { id: `after-revoke-${run}`, name: 'refused' },
          },
        ]),
      (res) => res.status === 401,
    );

    // Usage against the plan, and Tab through to monitors.
    tui.keys('u');
    expectTidy(
      await tui.waitFor('usage', (s) => s.some((l) => /^traces\s+\d+ of 10,000/.test(l)) && s.some((l) => l.includes('plan free'))),
    );
    tui.keys('Tab');
    expectTidy(await tui.waitForText('[Monitors]'));
    const monitors = await tui.waitFor(
      'the monitor in ALERT with its history',
      (s) => s.some((l) => /^› ALERT {3}slow llm /.test(l)) && s.some((l) => /→ ALERT\s+value \d+ > 100\b/.test(l)),
    );
    expectTidy(monitors);
    expect(monitors.some((l) => l.includes(`── history of ${monitorName}`))).toBe(true);

    // q quits: exit code 0, the alternate screen left and the terminal as it was.
    tui.keys('q');
    const after = await tui.waitForText('tui exited 0');
    expect(after.some((l) => l.includes('before the tui'))).toBe(true);
    expect(after.some((l) => l.includes('spanlog ·'))).toBe(false);
    expect(tui.display('#{alternate_on}')).toBe('0');
    expect(tui.display('#{cursor_flag}')).toBe('1');
  }, 240_000);

  it('with several projects, opens the one used last, remembered beside the login session', async () => {
    term.pane?.kill();
    const session = await login(term.stack, EMAIL);
    const second = `second project ${run}`;
    data(await mutate(term.stack, session.access_token, 'project.create', { orgId: term.tenant.orgId, name: second }));
    const open = () => {
      term.pane?.kill();
      term.pane = TmuxPane.start(`node ${CLI} tui --interval 500; echo "tui exited $?"; sleep 120`, term.env, term.dir);
      return term.pane;
    };

    // The last one opened was the only one then: it opens again, and Esc leads to the picker.
    let tui = open();
    expect((await tui.waitForText('[Traces]'))[0]).toContain('Tui Org / tui project');
    tui.keys('Escape');
    await tui.waitForText('ORGANIZATION');
    await tui.waitFor(`${second} selected`, (s) => {
      if (selectedLine(s).includes(second)) return true;
      tui.keys('Down');
      return false;
    });
    tui.keys('Enter');
    expect((await tui.waitForText('[Traces]'))[0]).toContain(`Tui Org / ${second}`);
    tui.keys('q');
    await tui.waitForText('tui exited 0');
    expect(existsSync(join(term.dir, 'config', 'spanlog', 'last-project.json'))).toBe(true);

    tui = open();
    expect((await tui.waitForText('[Traces]'))[0]).toContain(`Tui Org / ${second}`);
    tui.keys('q');
    await tui.waitForText('tui exited 0');
  }, 120_000);

  it('pages a trace of more spans than one page: the line under the tree says how many are loaded, and the last span loads the next page', async () => {
    const traceId = `paged-${run}`;
    const t0 = Date.now() - 60_000;
    const spans = 1_500;
    // Its timestamp ahead of every other trace's, so the list shows it on top, selected.
    const events = [
      {
        id: randomUUID(),
        type: 'trace-create',
        timestamp: new Date().toISOString(),
        body: { id: traceId, name: `paged ${run}`, timestamp: new Date(Date.now() + 60_000).toISOString() },
      },
      ...Array.from({ length: spans }, (_, i) => ({
        id: randomUUID(),
        type: 'span-create',
        timestamp: new Date().toISOString(),
        body: { id: `${traceId}-${i}`, traceId, name: `step ${i}`, startTime: new Date(t0 + i).toISOString() },
      })),
    ];
    for (let i = 0; i < events.length; i += 1_000) expect((await ingest(term.tenant.apiKey, events.slice(i, i + 1_000))).status).toBe(201);
    await eventually(
      async () => (await send(term.stack, 'GET', `/api/v1/traces?id=${traceId}`, { token: term.tenant.apiKey })).body.data[0]?.spanCount,
      (n) => n === spans,
    );

    // The test before left another project as the last used: name this one.
    const tui = TmuxPane.start(`node ${CLI} tui --interval 500 --project ${term.tenant.projectId}; sleep 60`, term.env, term.dir);
    try {
      await tui.waitForText('[Traces]');
      await tui.waitFor('the paged trace selected', (s) => selectedLine(s).includes(`paged ${run}`));
      tui.keys('Enter');
      expectTidy(await tui.waitForText(`1000 of ${spans} spans loaded`));
      tui.keys('End');
      await tui.waitFor('every span loaded', (s) => !s.some((l) => l.includes('spans loaded')));
      tui.keys('End');
      expectTidy(await tui.waitFor('the last span selected', (s) => selectedLine(s).includes(`step ${spans - 1}`)));
    } finally {
      tui.kill();
    }
  }, 120_000);
});
