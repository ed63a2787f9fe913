import type { DataSource } from 'typeorm';
import type { NatsResources } from '@app/eventlog';

export class UnknownProjectError extends Error {}

/** The INGEST subjects of one project's messages (its organization looked up), for a consumer's filter. */
export async function projectSubjects(db: Pick<DataSource, 'query'>, nats: NatsResources, projectId: string): Promise<string> {
  const rows: { org_id: string }[] = await db.query('SELECT org_id FROM projects WHERE id = $1', [projectId]);
  if (!rows.length) throw new UnknownProjectError(`no project ${projectId}`);
  return `${nats.layout.subjectRoot('ingest')}.${rows[0].org_id}.${projectId}.*`;
}
