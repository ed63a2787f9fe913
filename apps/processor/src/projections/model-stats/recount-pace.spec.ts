import { BACKLOG_MESSAGES, BACKLOG_SETTLE_MS, SETTLE_MS, recountPaceOf } from './recount-pace';

describe('recountPaceOf', () => {
  const kind = { msPerRow: 0.01 };

  it('waits the usual settle time while the telemetry projection keeps up', () => {
    expect(recountPaceOf(kind, 0)).toEqual({ floorMs: SETTLE_MS, msPerRow: 0.1 });
    expect(recountPaceOf(kind, BACKLOG_MESSAGES)).toEqual({ floorMs: SETTLE_MS, msPerRow: 0.1 });
  });

  it('lets the marks wait longer while the projection drains a backlog, at the same cost per row', () => {
    expect(recountPaceOf(kind, BACKLOG_MESSAGES + 1)).toEqual({ floorMs: BACKLOG_SETTLE_MS, msPerRow: 0.1 });
    expect(BACKLOG_SETTLE_MS).toBeGreaterThan(SETTLE_MS);
  });
});
