/** Why dist/ must be rebuilt (a sentence), or null when it is up to date; see build-state.mjs. */
export function staleReason(): string | null;
