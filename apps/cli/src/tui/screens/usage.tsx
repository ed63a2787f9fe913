import { usePolling } from '../hooks';
import { formatQuota } from '../format';
import { ink } from '../ink';
import { actionFor } from '../keys';
import { fit } from '../text';
import { Line, MessageLine, Rows } from '../widgets';
import type { ScreenProps } from './screen-props';

interface Props extends ScreenProps {
  orgId: string;
  orgName: string;
}

export const USAGE_HELP = 'Esc back · Tab screens · q quit';

export function Usage({ rpc, orgId, orgName, width, height, pollMs, onBack }: Props) {
  const { useInput } = ink();
  const { data: usage, error } = usePolling(() => rpc.usage(orgId), pollMs, `usage/${orgId}`);
  useInput((input, key) => {
    if (actionFor(input, key).kind === 'back') onBack();
  });
  if (!usage)
    return (
      <Rows height={height} width={width}>
        {[<MessageLine key="m" error={error} note="loading usage…" width={width} />]}
      </Rows>
    );
  const bar = Math.max(5, Math.min(30, width - 50));
  const overage =
    usage.overage.traces || usage.overage.evalRuns
      ? `overage: ${usage.overage.traces.toLocaleString('en-US')} traces, ${usage.overage.evalRuns.toLocaleString('en-US')} eval runs (billed)`
      : 'no overage';
  return (
    <Rows height={height} width={width}>
      <MessageLine
        key="m"
        error={error}
        note={`${orgName} · plan ${usage.plan} · ${usage.month} (UTC month; the whole organization)`}
        width={width}
      />
      <Line key="b1" text="" width={width} />
      <Line key="t" text={`${fit('traces', 10)} ${formatQuota(usage.traces, usage.limits.traces, bar)}`} width={width} />
      <Line key="s" text={`${fit('spans', 10)} ${usage.spans.toLocaleString('en-US')}`} width={width} />
      <Line key="e" text={`${fit('eval runs', 10)} ${formatQuota(usage.evalRuns, usage.limits.evalRuns, bar)}`} width={width} />
      <Line key="b2" text="" width={width} />
      <Line key="o" text={overage} width={width} dim={!usage.overage.traces && !usage.overage.evalRuns} />
    </Rows>
  );
}
