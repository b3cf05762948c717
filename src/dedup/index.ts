/** Version-aware chunk deduplication: pure functions, no database, no HTTP. */
export { buildParentIndex, ParentIndexBuilder, type ParentIndex } from './parent-index';
export { dedupChunk, type DedupChunkOptions } from './dedup-chunk';
export { dedupVersion } from './dedup-version';
export { noParentResult } from './no-parent';
export { summarise } from './summary';
export { splitSentences } from './sentences';
export { normaliseText } from './normalise';
export { DEDUP_THRESHOLDS } from './rules';
export type * from './types';
