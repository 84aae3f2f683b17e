import type { MemoryApiClient } from '@hindsight/memory-client';
import { EndSessionResponse, SessionTurns, type Turn, UserSummary } from '@hindsight/memory-model';
import type { SessionMemory } from '../conversation/ports.ts';
import { isKeyRefusal, MemoryApiKeyRefusedError } from './memory-api-access.ts';

/**
 * Sessions through memory-api's REST routes: turns carry their role and get turn ids,
 * which consolidation uses for provenance (the MCP write tool has no role), and
 * ending a session or reading the profile summary are no memory tools.
 */
export class RestSessionMemory implements SessionMemory {
  constructor(private readonly client: MemoryApiClient) {}

  async appendTurns(
    sessionId: string,
    userId: string,
    turns: Array<{ role: 'user' | 'assistant'; content: string }>,
  ): Promise<void> {
    await this.call(() =>
      this.client.appendTurns(
        sessionId,
        turns.map((t) => ({ user_id: userId, role: t.role, content: t.content })),
      ),
    );
  }

  async recentTurns(sessionId: string, userId: string, limit: number): Promise<Turn[]> {
    const session = SessionTurns.parse(await this.call(() => this.client.sessionTurns(sessionId)));
    // Another user's session id shares nothing with this conversation.
    if (session.user_id !== null && session.user_id !== userId) return [];
    return session.turns.slice(-limit);
  }

  async end(sessionId: string, userId: string): Promise<EndSessionResponse> {
    return EndSessionResponse.parse(await this.call(() => this.client.endSession(sessionId, userId)));
  }

  async profileSummary(userId: string): Promise<string | null> {
    return UserSummary.parse(await this.call(() => this.client.userSummary(userId))).summary;
  }

  /** memory-api refusing the agent's key is the agent's outage, not the caller's bad key. */
  private async call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isKeyRefusal(error)) throw new MemoryApiKeyRefusedError({ cause: error });
      throw error;
    }
  }
}
