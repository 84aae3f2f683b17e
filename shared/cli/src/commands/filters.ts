/** The flags that narrow `list` and `export` to some memories. */
export const FILTER_OPTIONS = {
  user: { type: 'string', short: 'u' },
  type: { type: 'string', short: 't' },
  category: { type: 'string' },
  tag: { type: 'string' },
  status: { type: 'string' },
  session: { type: 'string' },
} as const;

export interface FilterValues {
  user?: string;
  type?: string;
  category?: string;
  tag?: string;
  status?: string;
  session?: string;
}

/** Those flags under the query parameter names of memory-api's list and export routes. */
export function filterQuery(values: FilterValues): Record<string, string | undefined> {
  return {
    user_id: values.user,
    memory_type: values.type,
    category: values.category,
    tag: values.tag,
    status: values.status,
    session_id: values.session,
  };
}
