/**
 * TypeORM answers a bare UPDATE or DELETE (… RETURNING) with `[rows, affected count]`
 * rather than the rows a SELECT or INSERT gets: read such answers through these.
 */
export const returnedRows = <T>(result: unknown): T[] => (Array.isArray(result) && Array.isArray(result[0]) ? (result[0] as T[]) : []);

export const affectedRows = (result: unknown): number => (Array.isArray(result) && typeof result[1] === 'number' ? result[1] : 0);
