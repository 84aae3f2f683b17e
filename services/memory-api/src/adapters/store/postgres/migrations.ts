/**
 * Versioned schema migrations, applied in order by `open` (one transaction, under an advisory lock,
 * so replicas starting together migrate once). Never edit a released migration: add the next one.
 * `table` is the schema-qualified name of the memories table; the vector dimension is fixed when
 * the store is created.
 */
export interface Migration {
  version: number;
  statements: (names: SchemaNames, dimension: number) => string[];
}

export interface SchemaNames {
  /** The quoted schema, e.g. `"hindsight"`. */
  schema: string;
  /** `"hindsight".memories` */
  memories: string;
  /** `"hindsight".erasures`: user erasure tombstones. */
  erasures: string;
}

/** pgvector's HNSW indexes `vector` columns of at most this many dimensions. */
export const MAX_INDEXED_DIMENSION = 2000;

/**
 * Rows see only the tenant their transaction named (`hindsight.tenant`), or every tenant when
 * `hindsight.all_tenants` is on (migrations, admin counts). The store filters by tenant in every
 * query as well: this is the second wall, for roles that are not superusers (they bypass it).
 */
const TENANT_VISIBLE =
  "(tenant = current_setting('hindsight.tenant', true) OR current_setting('hindsight.all_tenants', true) = 'on')";

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    statements: ({ memories }, dimension) => [
      `CREATE TABLE ${memories} (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id text NOT NULL UNIQUE,
        tenant text NOT NULL,
        user_id text NOT NULL,
        agent_id text,
        session_id text,
        layer text NOT NULL,
        category text NOT NULL,
        content text NOT NULL,
        query text,
        tags text[] NOT NULL,
        metadata json NOT NULL,
        confidence double precision NOT NULL,
        importance double precision,
        proof_count integer NOT NULL,
        source json NOT NULL,
        occurred_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        valid_until timestamptz,
        status text NOT NULL,
        superseded_by text,
        history json NOT NULL,
        access_count integer NOT NULL,
        last_accessed_at timestamptz,
        decay_weight double precision NOT NULL,
        content_hash text NOT NULL,
        embedding_model text NOT NULL,
        embedding vector(${dimension}) NOT NULL,
        keyword_terms text[] NOT NULL,
        keyword_keys text[] NOT NULL
      )`,
      `CREATE UNIQUE INDEX memories_active_hash ON ${memories} (tenant, user_id, layer, content_hash) WHERE status = 'active'`,
      `CREATE INDEX memories_scope ON ${memories} (tenant, user_id, layer, status)`,
      `CREATE INDEX memories_session ON ${memories} (tenant, session_id)`,
      `CREATE INDEX memories_created ON ${memories} (tenant, created_at)`,
      `CREATE INDEX memories_tags ON ${memories} USING gin (tags)`,
      `CREATE INDEX memories_keywords ON ${memories} USING gin (keyword_keys)`,
      ...(dimension <= MAX_INDEXED_DIMENSION
        ? [`CREATE INDEX memories_embedding ON ${memories} USING hnsw (embedding vector_cosine_ops)`]
        : []),
      `ALTER TABLE ${memories} ENABLE ROW LEVEL SECURITY`,
      `ALTER TABLE ${memories} FORCE ROW LEVEL SECURITY`,
      `CREATE POLICY memories_tenant ON ${memories} USING ${TENANT_VISIBLE} WITH CHECK ${TENANT_VISIBLE}`,
    ],
  },
  {
    // Optimistic concurrency: an update commits only while the row still has the version it was decided on.
    version: 2,
    statements: ({ memories }) => [`ALTER TABLE ${memories} ADD COLUMN version integer NOT NULL DEFAULT 1`],
  },
  {
    // User erasure tombstones: who was erased when and what went where (counts, never content).
    version: 3,
    statements: ({ erasures }) => [
      `CREATE TABLE ${erasures} (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        erasure_id text NOT NULL UNIQUE,
        tenant text NOT NULL,
        user_id text NOT NULL,
        receipt json NOT NULL
      )`,
      `CREATE INDEX erasures_owner ON ${erasures} (tenant, user_id, seq)`,
      `ALTER TABLE ${erasures} ENABLE ROW LEVEL SECURITY`,
      `ALTER TABLE ${erasures} FORCE ROW LEVEL SECURITY`,
      `CREATE POLICY erasures_tenant ON ${erasures} USING ${TENANT_VISIBLE} WITH CHECK ${TENANT_VISIBLE}`,
    ],
  },
  {
    // A memory's history walks the memories it superseded by index, one lookup per version.
    version: 4,
    statements: ({ memories }) => [
      `CREATE INDEX memories_superseded_by ON ${memories} (tenant, superseded_by) WHERE superseded_by IS NOT NULL`,
    ],
  },
];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/**
 * The k-NN index of today's layout (what migration 1 creates), for a re-index that replaces the
 * embedding column: none above pgvector's HNSW limit.
 */
export function embeddingIndexStatements({ memories }: SchemaNames, dimension: number): string[] {
  return dimension <= MAX_INDEXED_DIMENSION
    ? [`CREATE INDEX memories_embedding ON ${memories} USING hnsw (embedding vector_cosine_ops)`]
    : [];
}
