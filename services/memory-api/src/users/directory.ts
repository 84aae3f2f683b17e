import type { TenantUser, UserList, UserListQuery, UserSessions } from '@hindsight/memory-model';
import type { MemoryStore } from '../memory/store-port.ts';
import type { WorkingMemoryStore } from '../working/port.ts';

export interface DirectoryDeps {
  store: Pick<MemoryStore, 'countByUser'>;
  working: Pick<WorkingMemoryStore, 'userSessions'>;
}

/**
 * The tenant's users that have long-term memories, newest activity first (then by id), with
 * their counts per layer and status and their open sessions. A page is cut from one reading of
 * the counts; the cursor is the offset of the next page.
 */
export async function listTenantUsers(deps: DirectoryDeps, tenant: string, query: UserListQuery): Promise<UserList> {
  const users = new Map<string, { statuses: TenantUser['statuses']; lastCreatedAt: number }>();
  for (const row of await deps.store.countByUser(tenant)) {
    const user = users.get(row.userId) ?? { statuses: {}, lastCreatedAt: 0 };
    const byStatus = user.statuses[row.layer] ?? {};
    byStatus[row.status] = row.count;
    user.statuses[row.layer] = byStatus;
    user.lastCreatedAt = Math.max(user.lastCreatedAt, row.lastCreatedAt);
    users.set(row.userId, user);
  }
  const ordered = [...users.entries()].sort(
    ([idA, a], [idB, b]) => b.lastCreatedAt - a.lastCreatedAt || idA.localeCompare(idB),
  );
  const offset = query.cursor === undefined ? 0 : Number(query.cursor);
  const page = ordered.slice(offset, offset + query.limit);
  const items = await Promise.all(
    page.map(async ([userId, user]): Promise<TenantUser> => {
      const sessions = await deps.working.userSessions(tenant, userId);
      const layers = {
        working: sessions.reduce((sum, s) => sum + s.turns, 0),
        episodic: user.statuses.episodic?.active ?? 0,
        semantic: user.statuses.semantic?.active ?? 0,
      };
      const lastWrite = sessions[0]?.updatedAt ? Date.parse(sessions[0].updatedAt) : 0;
      const last = Math.max(user.lastCreatedAt, lastWrite);
      return {
        user_id: userId,
        layers,
        statuses: user.statuses,
        open_sessions: sessions.length,
        last_activity_at: last > 0 ? new Date(last).toISOString() : null,
      };
    }),
  );
  return { items, next_cursor: offset + query.limit < ordered.length ? String(offset + query.limit) : null };
}

export async function listUserSessions(
  deps: Pick<DirectoryDeps, 'working'>,
  tenant: string,
  userId: string,
): Promise<UserSessions> {
  const sessions = await deps.working.userSessions(tenant, userId);
  return {
    user_id: userId,
    items: sessions.map((s) => ({
      session_id: s.sessionId,
      turns: s.turns,
      last_seq: s.lastSeq,
      updated_at: s.updatedAt,
    })),
  };
}
