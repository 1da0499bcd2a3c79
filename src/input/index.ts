// Public surface of the input stage: readInputs (and readInput) yielding
// LineChunks, input size and identity for progress and "already ingested"
// checks, and the splitter/detection for callers that bring their own bytes.
// Re-exports only; no logic here.

export { readInputs, readInput, type InputSpec, type InputInfo, type ReadInputsOptions } from './read.js';
export { inputSize, type ByteStream } from './open.js';
export { inputIdentity, SAMPLE_BYTES, type InputIdentity, type IdentityMethod } from './identity.js';
export { LineSplitter, EXCERPT_BYTES, type SplitOptions } from './split.js';
export { detectFormat, isGzipName, hasGzipMagic, PEEK_BYTES, type ConcreteFormat, type Detection } from './detect.js';
export type { LineChunk, Reject, RejectReason } from './types.js';
