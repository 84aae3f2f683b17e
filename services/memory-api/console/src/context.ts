import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api } from './api.ts';

export interface ConsoleState {
  api: Api;
  tenant: string;
  admin: boolean;
  /** The user the pages show; null until one is picked. */
  user: string | null;
  pickUser(userId: string): void;
}

export const Console = createContext<ConsoleState | null>(null);

export function useConsole(): ConsoleState {
  const state = useContext(Console);
  if (!state) throw new Error('the console state is missing');
  return state;
}

/** Navigates within the console (hash routes: the key never travels in a URL). */
export function go(path: string): void {
  location.hash = `#${path}`;
}
