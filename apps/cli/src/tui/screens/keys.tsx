import { useState } from 'react';
import { errorText, usePolling, useSyncState } from '../hooks';
import { formatTime } from '../format';
import { ink } from '../ink';
import { type LineEdit, actionFor, editLine } from '../keys';
import { EMPTY_LIST, type ListState, clampList, moveSelection, visibleRows } from '../list-state';
import type { ApiKey, CreatedKey } from '../spanlog-rpc';
import { fit } from '../text';
import { Line, MessageLine, Rows } from '../widgets';
import type { ProjectScreenProps } from './screen-props';

/** The list is read again every `pollMs`, so a key's last use shows. */
interface Props extends ProjectScreenProps {
  setCapturing: (capturing: boolean) => void;
}

export const KEYS_HELP = '↑↓ move · n new key · r revoke · Esc back · Tab screens · q quit';

/** What the keys screen is doing besides listing: naming a new key, showing its secret, or confirming a revoke. */
type Mode =
  | { kind: 'list' }
  | { kind: 'naming'; line: LineEdit }
  | { kind: 'secret'; key: CreatedKey }
  | { kind: 'confirmRevoke'; key: ApiKey }
  | { kind: 'busy'; what: string };

export function Keys({ rpc, projectId, width, height, pollMs, setCapturing, onBack }: Props) {
  const { useInput } = ink();
  const { data, error, reload } = usePolling(() => rpc.keys(projectId), pollMs, `keys/${projectId}`);
  const [mode, setModeState, modeRef] = useSyncState<Mode>({ kind: 'list' });
  const [list, setList, listRef] = useSyncState<ListState>(EMPTY_LIST);
  const [message, setMessage] = useState<{ error?: string; note?: string }>({});
  const keys = data ?? [];
  const rowsHeight = height - 2;
  const shown = clampList(list, keys.length, rowsHeight);

  const setMode = (next: Mode) => {
    setModeState(next);
    setCapturing(next.kind !== 'list');
  };

  const run = async (what: string, act: () => Promise<Mode>) => {
    setMode({ kind: 'busy', what });
    try {
      setMode(await act());
    } catch (err) {
      setMessage({ error: errorText(err) });
      setMode({ kind: 'list' });
    }
    reload();
  };

  useInput((input, key) => {
    const mode = modeRef.current;
    switch (mode.kind) {
      case 'busy':
        return;
      case 'naming': {
        const result = editLine(mode.line, input, key);
        if (result.kind === 'editing') setMode({ kind: 'naming', line: result.line });
        else if (result.kind === 'cancel') setMode({ kind: 'list' });
        else if (!result.text.trim()) setMessage({ error: 'a key needs a name' });
        else {
          const name = result.text.trim();
          void run(`creating key ${name}…`, async () => ({ kind: 'secret', key: await rpc.createKey(projectId, name) }));
        }
        return;
      }
      case 'secret':
        // The secret stays until the user says it is copied: Enter or Esc, nothing else.
        if (key.return || key.escape) {
          setMessage({ note: `key ${mode.key.name} (${mode.key.prefix}…) created` });
          setMode({ kind: 'list' });
        }
        return;
      case 'confirmRevoke':
        if (input === 'y' || input === 'Y') {
          const target = mode.key;
          void run(`revoking ${target.name}…`, async () => {
            await rpc.revokeKey(projectId, target.id);
            setMessage({ note: `key ${target.name} (${target.prefix}…) revoked: it is refused from now on` });
            return { kind: 'list' };
          });
        } else {
          setMessage({ note: 'not revoked' });
          setMode({ kind: 'list' });
        }
        return;
      case 'list':
        break;
    }
    const action = actionFor(input, key);
    if (action.kind === 'move') setList(moveSelection(listRef.current, action.move, keys.length, rowsHeight));
    else if (action.kind === 'back') onBack();
    else if (action.kind === 'letter' && action.letter === 'n') {
      setMessage({});
      setMode({ kind: 'naming', line: { text: '' } });
    } else if (action.kind === 'letter' && action.letter === 'r') {
      const target = keys[clampList(listRef.current, keys.length, rowsHeight).index];
      if (!target) return;
      if (target.revokedAt) setMessage({ note: `key ${target.name} is already revoked` });
      else setMode({ kind: 'confirmRevoke', key: target });
    }
  });

  if (mode.kind === 'secret') {
    return (
      <Rows height={height} width={width}>
        <Line key="t" text={`New API key "${mode.key.name}": copy it now, it is not shown again.`} width={width} bold />
        <Line key="b" text="" width={width} />
        {/* The secret is never cut: it wraps if the terminal is narrower than it. */}
        <SecretLine key="s" secret={mode.key.apiKey} />
        <Line key="a" text="" width={width} />
        <Line key="e" text="Press Enter once you have copied it." width={width} dim />
      </Rows>
    );
  }

  const prompt =
    mode.kind === 'naming' ? (
      <Line key="m" text={`Name of the new key: ${mode.line.text}█  (Enter create · Esc cancel)`} width={width} color="cyan" />
    ) : mode.kind === 'confirmRevoke' ? (
      <Line
        key="m"
        text={`y/n: revoke ${mode.key.name} (${mode.key.prefix}…)? Requests with it get 401 from then on.`}
        width={width}
        color="yellow"
      />
    ) : mode.kind === 'busy' ? (
      <Line key="m" text={mode.what} width={width} dim />
    ) : (
      <MessageLine
        key="m"
        error={message.error ?? error}
        note={message.note ?? (data ? `${keys.length} ${keys.length === 1 ? 'key' : 'keys'}` : 'loading keys…')}
        width={width}
      />
    );
  const nameWidth = Math.max(8, width - 2 - 14 - 12 - 12 - 12 - 4);
  return (
    <Rows height={height} width={width}>
      {prompt}
      <Line
        key="h"
        text={`  ${fit('NAME', nameWidth)} ${fit('PREFIX', 14)} ${fit('CREATED', 12)} ${fit('LAST USED', 12)} ${fit('STATE', 12)}`}
        width={width}
        dim
      />
      {...visibleRows(keys, shown, rowsHeight).map((k, i) => {
        const selected = shown.top + i === shown.index;
        const now = new Date();
        const text = `${fit(k.name, nameWidth)} ${fit(`${k.prefix}…`, 14)} ${fit(formatTime(k.createdAt, now), 12)} ${fit(k.lastUsedAt ? formatTime(k.lastUsedAt, now) : 'never', 12)} ${fit(k.revokedAt ? 'revoked' : 'active', 12)}`;
        return (
          <Line key={k.id} text={`${selected ? '›' : ' '} ${text}`} width={width} selected={selected} dim={!!k.revokedAt && !selected} />
        );
      })}
    </Rows>
  );
}

function SecretLine({ secret }: { secret: string }) {
  const { Text } = ink();
  return (
    <Text wrap="wrap" color="green">
      {secret}
    </Text>
  );
}
