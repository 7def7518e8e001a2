/**
 * How long clients and shared caches may keep a GET answer: REST's and /graphql's persisted
 * documents alike, as long as the response cache keeps one (RESPONSE_CACHE_TTL_SECONDS'
 * default), so no copy is older than the service's own.
 */
export const CACHE_CONTROL = {
  public: 'public, max-age=30',
  private: 'private, max-age=30',
} as const;
