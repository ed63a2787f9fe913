import { useMemo } from 'react';
import { TimeChart } from '../components/Chart';
import { ErrorAlert } from '../components/ErrorAlert';
import { useDailyUsage, useUsage } from '../data/organization';
import type { Org } from '../data/projects';
import { formatCount } from '../lib/format';

function Meter({ label, used, limit, overage }: { label: string; used: number; limit: number | null; overage: number }) {
  const share = limit ? Math.min(1, used / limit) : 0;
  return (
    <div className="usage-meter">
      <div>
        <strong>{label}</strong>: <span data-testid={`usage-${label.toLowerCase().replace(/\s+/g, '-')}`}>{formatCount(used)}</span>
        {limit !== null && ` of ${formatCount(limit)}`}
        {overage > 0 && <span className="overage"> · overage {formatCount(overage)}</span>}
      </div>
      {limit !== null && <progress max={limit} value={Math.min(used, limit)} aria-label={`${label} used: ${Math.round(share * 100)}%`} />}
    </div>
  );
}

export function Usage({ org }: { org: Org }) {
  const usage = useUsage(org.id);
  const daily = useDailyUsage(org.id);
  const times = useMemo(() => (daily.data?.days ?? []).map((d) => Date.parse(`${d.day}T00:00:00Z`)), [daily.data]);
  const series = useMemo(
    () => [
      { label: 'Traces', values: (daily.data?.days ?? []).map((d) => d.traces), color: '#2563eb' },
      { label: 'Eval runs', values: (daily.data?.days ?? []).map((d) => d.evalRuns), color: '#ea580c' },
    ],
    [daily.data],
  );
  const u = usage.data;
  return (
    <div>
      <ErrorAlert error={usage.error} />
      {u && (
        <>
          <p>
            {org.name}, {u.month} (UTC), <strong>{u.plan}</strong> plan.
          </p>
          <Meter label="Traces" used={Number(u.traces)} limit={u.limits.traces} overage={u.overage.traces} />
          <Meter label="Eval runs" used={Number(u.evalRuns)} limit={u.limits.evalRuns} overage={u.overage.evalRuns} />
          <Meter label="Spans" used={Number(u.spans)} limit={null} overage={0} />
        </>
      )}
      <ErrorAlert error={daily.error} />
      {daily.data &&
        (daily.data.days.length ? (
          <TimeChart title={`Daily usage, ${daily.data.month}`} times={times} stepMs={86_400_000} series={series} bars />
        ) : (
          <p className="muted">Nothing counted this month yet.</p>
        ))}
    </div>
  );
}
