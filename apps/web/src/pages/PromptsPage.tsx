import { diffLines } from 'diff';
import { useEffect, useMemo, useState } from 'react';
import { ErrorAlert } from '../components/ErrorAlert';
import { type PromptVersion as Version, usePromptVersions, usePrompts } from '../data/prompts';
import { useCurrentProject } from '../data/projects';
import { formatTime } from '../lib/format';

const asText = (v: Version) =>
  (typeof v.template === 'string' ? v.template : JSON.stringify(v.template, null, 2)) +
  `\n\nconfig: ${JSON.stringify(v.config ?? {}, null, 2)}\n`;

function Diff({ older, newer }: { older: Version; newer: Version }) {
  const parts = useMemo(() => diffLines(asText(older), asText(newer)), [older, newer]);
  return (
    <pre className="diff" aria-label={`Changes from version ${older.version} to version ${newer.version}`}>
      {parts.map((part, i) => (
        <span key={i} className={part.added ? 'added' : part.removed ? 'removed' : undefined}>
          {part.value
            .replace(/\n$/, '')
            .split('\n')
            .map((line) => `${part.added ? '+ ' : part.removed ? '- ' : '  '}${line}`)
            .join('\n') + '\n'}
        </span>
      ))}
    </pre>
  );
}

/** One side of the comparison: a version of the prompt, by number. */
function VersionPick({
  label,
  versions,
  value,
  onPick,
}: {
  label: string;
  versions: Version[];
  value: number | null;
  onPick: (version: number) => void;
}) {
  return (
    <label>
      {label}{' '}
      <select value={value ?? ''} onChange={(e) => onPick(Number(e.target.value))}>
        {versions.map((v) => (
          <option key={v.version} value={v.version}>
            {v.version}
          </option>
        ))}
      </select>
    </label>
  );
}

function Versions({ projectId, name }: { projectId: string; name: string }) {
  const { data, error, isLoading } = usePromptVersions(projectId, name);
  const versions = data?.data ?? [];
  const [a, setA] = useState<number | null>(null);
  const [b, setB] = useState<number | null>(null);
  useEffect(() => {
    setB(versions[0]?.version ?? null);
    setA(versions[1]?.version ?? versions[0]?.version ?? null);
    // Only a new answer resets the pair: newest against the one before it.
  }, [data]);
  if (isLoading) return <p role="status">Loading versions…</p>;
  if (error) return <ErrorAlert error={error} />;
  const older = versions.find((v) => v.version === a);
  const newer = versions.find((v) => v.version === b);
  return (
    <div>
      <table className="plain">
        <caption>Versions of {name}</caption>
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Labels</th>
            <th scope="col">Commit message</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {versions.map((v) => (
            <tr key={v.version}>
              <td className="num">{v.version}</td>
              <td>
                {v.labels.map((l) => (
                  <span key={l} className="tag">
                    {l}
                  </span>
                ))}
              </td>
              <td>{v.commitMessage ?? ''}</td>
              <td>{formatTime(v.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {versions.length > 0 && (
        <div className="diff-pick">
          <VersionPick label="Compare version" versions={versions} value={a} onPick={setA} />
          <VersionPick label="with version" versions={versions} value={b} onPick={setB} />
        </div>
      )}
      {older && newer && <Diff older={older} newer={newer} />}
    </div>
  );
}

export function PromptsPage() {
  const { projectId } = useCurrentProject();
  const { data, error, isLoading } = usePrompts(projectId);
  const [selected, setSelected] = useState<string | null>(null);
  const prompts = data?.data ?? [];
  return (
    <section aria-labelledby="prompts-title">
      <h1 id="prompts-title">Prompts</h1>
      {isLoading && <p role="status">Loading prompts…</p>}
      <ErrorAlert error={error} />
      {!isLoading && !prompts.length && <p>No prompt templates yet: push one with POST /api/v1/prompt-templates.</p>}
      <div className="two-col">
        <ul className="prompt-list" aria-label="Prompt templates">
          {prompts.map((p) => (
            <li key={p.name}>
              <button type="button" aria-pressed={selected === p.name} onClick={() => setSelected(p.name)}>
                <strong>{p.name}</strong> v{p.latestVersion}{' '}
                {p.labels.map((l) => (
                  <span key={l} className="tag">
                    {l}
                  </span>
                ))}
              </button>
            </li>
          ))}
        </ul>
        {selected && <Versions projectId={projectId} name={selected} />}
      </div>
    </section>
  );
}
