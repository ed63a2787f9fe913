import { useEffect, useState } from 'react';
import { session } from '../rpc';
import type { Session, SessionEvent } from './session-store';

export interface SessionState {
  /** 'restoring' while a stored refresh token is traded for a session after a reload. */
  status: 'restoring' | 'signed-in' | 'signed-out';
  current: Session | null;
  /** Why the user is on the login page, when it was not their choice. */
  lastEvent: SessionEvent | null;
}

export function useSession(): SessionState {
  const [state, setState] = useState<SessionState>(() => ({
    status: session.current ? 'signed-in' : session.resumable ? 'restoring' : 'signed-out',
    current: session.current,
    lastEvent: null,
  }));
  useEffect(() => {
    const off = session.subscribe((event) =>
      setState({ status: session.current ? 'signed-in' : 'signed-out', current: session.current, lastEvent: event }),
    );
    if (!session.current && session.resumable) {
      void session.accessToken().then((token) => {
        if (!token) setState((s) => ({ ...s, status: 'signed-out', current: null }));
      });
    }
    return off;
  }, []);
  return state;
}
