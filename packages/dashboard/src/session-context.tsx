import { createContext, useContext } from 'react';
import type { ApiClient } from './api/api-client';
import type { Session } from './api/console.types';

export interface SessionState {
  api: ApiClient;
  session: Session;
  /** Fetch the session again (usage moves as reports arrive). */
  refreshSession(): void;
  signOut(): Promise<void>;
}

export const SessionContext = createContext<SessionState | null>(null);

export function useSession(): SessionState {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside a signed-in page');
  return value;
}
