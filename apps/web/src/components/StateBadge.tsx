import type { Monitor } from '../lib/monitor-form';

/** The state a monitor shows: the evaluated one, PENDING before its first evaluation, OFF when disabled. */
export const stateOf = (m: Pick<Monitor, 'enabled' | 'state'>): string => (!m.enabled ? 'OFF' : (m.state ?? 'PENDING'));

/** A monitor state as a coloured badge whose text says it too, so colour is never the only sign. */
export function StateBadge({ state }: { state: string }) {
  return (
    <span className={`state-badge state-${state.toLowerCase().replace('_', '-')}`} data-state={state}>
      {state}
    </span>
  );
}
