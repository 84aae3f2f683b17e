import type {
  ErasureList,
  ErasureListQuery,
  ErasureReceipt,
  PutUserSummaryBody,
  UserList,
  UserListQuery,
  UserSessions,
  UserSummary,
} from '@hindsight/memory-model';
import type { ManageDeps } from '../memory/manage.ts';
import { listTenantUsers, listUserSessions } from './directory.ts';
import { type EraseDeps, eraseUser } from './erase.ts';
import { assertJobMayWrite } from './erasure-fence.ts';
import { saveUserSummary, userSummary } from './profile.ts';

/** The users of a tenant, wired to their adapters: what the user routes and the erasure fence call. */
export interface UserService {
  list(tenant: string, query: UserListQuery): Promise<UserList>;
  sessions(tenant: string, userId: string): Promise<UserSessions>;
  summary(tenant: string, userId: string): Promise<UserSummary>;
  /** `trusted`: the worker's admin key, whose profile is recorded as consolidation. */
  saveSummary(
    tenant: string,
    userId: string,
    body: PutUserSummaryBody,
    options: { trusted: boolean },
  ): Promise<UserSummary>;
  erase(tenant: string, userId: string): Promise<ErasureReceipt>;
  erasures(tenant: string, query: ErasureListQuery): Promise<ErasureList>;
  /** Refuses a write made on behalf of `jobId` when one of `users` was erased after the job was enqueued. */
  assertJobMayWrite(tenant: string, jobId: string, users: ReadonlyArray<string | undefined>): Promise<void>;
}

export type UserServiceDeps = EraseDeps & ManageDeps;

export function createUserService(deps: UserServiceDeps): UserService {
  return {
    list: (tenant, query) => listTenantUsers(deps, tenant, query),
    sessions: (tenant, userId) => listUserSessions(deps, tenant, userId),
    summary: (tenant, userId) => userSummary(deps.store, tenant, userId),
    saveSummary: (tenant, userId, body, options) => saveUserSummary(deps, tenant, userId, body, options),
    erase: (tenant, userId) => eraseUser(deps, tenant, userId),
    async erasures(tenant, { user_id, limit, cursor }) {
      const page = await deps.store.listErasures(tenant, user_id ? { userId: user_id } : {}, limit, cursor);
      return { items: page.items, next_cursor: page.nextCursor };
    },
    assertJobMayWrite: (tenant, jobId, users) => assertJobMayWrite(deps, tenant, jobId, users),
  };
}
