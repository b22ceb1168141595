// How many integration files run at once, each worker on a shared cluster of its own: read by the
// vitest config (the project's workers) and by the global setup (the clusters it boots).
export const INTEGRATION_WORKERS = 2;
