// `npm run bench -- peers`: ours against every peer a JavaScript user would pick instead (native
// hnswlib through python3-hnswlib where installed, hnswlib-node, usearch), single queries at equal
// recall and builds, on the data sets of bench/native.mjs, which this runs (its options: --only
// gaussian|million|fashion, --items, --dim, --queries, --M, --efConstruction).
export { default } from './native.mjs';
