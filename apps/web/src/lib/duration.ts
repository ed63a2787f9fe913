import { formatMs } from './format';

/** A session's or user's span of time: minutes and hours once it passes a minute (sessions last hours, not milliseconds). */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || ms < 60_000) return formatMs(ms);
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes} min ${Math.floor((ms % 60_000) / 1000)} s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}
