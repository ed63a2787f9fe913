import type { SpanlogRpc } from '../spanlog-rpc';

/** What every screen past the project picker is given: the server, its size, how often it reads again, and the way back. */
export interface ScreenProps {
  rpc: SpanlogRpc;
  width: number;
  height: number;
  pollMs: number;
  onBack: () => void;
}

/** A screen of one project's data. */
export interface ProjectScreenProps extends ScreenProps {
  projectId: string;
}
