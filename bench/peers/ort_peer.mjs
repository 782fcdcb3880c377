// ONNX Runtime's side of the peer benchmark (bench/peers/run.sh), through the npm package
// onnxruntime-node (CPU execution provider).
//
// Usage: node ort_peer.mjs --node-modules DIR --model FILE.onnx --input NAME=IN.npy [...]
//          [--runs K] [--warmup W] [--min-time S] [--threads N] [--out OUT.npy]
// Creates one session (graph optimizations 'all', sequential execution, N intra-op threads,
// default 2, one inter-op thread), runs it W times untimed, then times session.run until there
// are at least K runs and S seconds have passed. Prints {"times_ms": [...], "load_ms": ...,
// "version": ...} and writes the first run's first output to OUT.npy. Only run() is timed.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

function fail(message) {
  process.stderr.write(`ort_peer: ${message}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const args = { inputs: [], runs: 10, warmup: 2, minTime: 0, threads: 2 };
  for (let i = 0; i < argv.length; ++i) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (value === undefined) fail(`${flag} needs a value`);
    ++i;
    if (flag === '--node-modules') args.nodeModules = value;
    else if (flag === '--model') args.model = value;
    else if (flag === '--input') {
      const eq = value.indexOf('=');
      if (eq <= 0) fail(`--input takes NAME=FILE.npy, got '${value}'`);
      args.inputs.push([value.slice(0, eq), value.slice(eq + 1)]);
    } else if (flag === '--out') args.out = value;
    else if (flag === '--runs') args.runs = Number(value);
    else if (flag === '--warmup') args.warmup = Number(value);
    else if (flag === '--min-time') args.minTime = Number(value);
    else if (flag === '--threads') args.threads = Number(value);
    else fail(`unknown option ${flag}`);
  }
  if (!args.nodeModules || !args.model || args.inputs.length === 0) {
    fail('usage: ort_peer.mjs --node-modules DIR --model FILE.onnx --input NAME=IN.npy ...');
  }
  for (const key of ['runs', 'warmup', 'minTime', 'threads']) {
    if (!Number.isFinite(args[key]) || args[key] < 0) fail(`bad value for ${key}: ${args[key]}`);
  }
  return args;
}

// NumPy dtype string <-> ONNX Runtime tensor type and typed array.
const DTYPES = {
  '<f4': ['float32', Float32Array],
  '<f8': ['float64', Float64Array],
  '<i8': ['int64', BigInt64Array],
  '<i4': ['int32', Int32Array],
  '|b1': ['bool', Uint8Array],
};

// A C-order little-endian .npy file (versions 1-3) -> {type, dims, data}.
function readNpy(file) {
  const buf = readFileSync(file);
  if (buf.toString('latin1', 0, 6) !== '\x93NUMPY') fail(`${file} is not a .npy file`);
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + headerLen);
  const descr = /'descr':\s*'([^']+)'/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !shape || /'fortran_order':\s*True/.test(header)) {
    fail(`${file}: expected a C-order .npy, header ${header}`);
  }
  const entry = DTYPES[descr[1]];
  if (!entry) fail(`${file}: dtype ${descr[1]} is not handled`);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s).map(Number);
  const [type, Ctor] = entry;
  const bytes = buf.subarray(start + headerLen);
  const copy = new ArrayBuffer(bytes.length);  // aligned for the typed array
  new Uint8Array(copy).set(bytes);
  return { type, dims, data: new Ctor(copy) };
}

function writeNpy(file, tensor) {
  const descr = Object.keys(DTYPES).find((k) => DTYPES[k][0] === tensor.type);
  if (!descr) fail(`output type ${tensor.type} has no .npy dtype here`);
  const dims = tensor.dims.length === 1 ? `${tensor.dims[0]},` : tensor.dims.join(', ');
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims}), }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';  // total a multiple of 64
  const prefix = Buffer.alloc(10);
  prefix.write('\x93NUMPY', 0, 'latin1');
  prefix[6] = 1;
  prefix[7] = 0;
  prefix.writeUInt16LE(header.length, 8);
  const data = tensor.data;
  writeFileSync(file, Buffer.concat([prefix, Buffer.from(header, 'latin1'),
    Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}

const args = parseArgs(process.argv.slice(2));
const require = createRequire(path.join(path.resolve(args.nodeModules), 'noop.js'));
const ort = require('onnxruntime-node');
const version = require('onnxruntime-node/package.json').version;

const feeds = {};
for (const [name, file] of args.inputs) {
  const { type, dims, data } = readNpy(file);
  feeds[name] = new ort.Tensor(type, data, dims);
}
const options = {
  executionProviders: ['cpu'],
  graphOptimizationLevel: 'all',
  executionMode: 'sequential',
  intraOpNumThreads: args.threads,
  interOpNumThreads: 1,
  logSeverityLevel: 3,
};
let start = process.hrtime.bigint();
const session = await ort.InferenceSession.create(args.model, options);
const loadMs = Number(process.hrtime.bigint() - start) / 1e6;

let first = null;
for (let i = 0; i < args.warmup; ++i) {
  const out = await session.run(feeds);
  if (first === null) first = out;
}
const times = [];
const timingStart = process.hrtime.bigint();
while (times.length < args.runs ||
       Number(process.hrtime.bigint() - timingStart) < 1e9 * args.minTime) {
  start = process.hrtime.bigint();
  const out = await session.run(feeds);
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
  if (first === null) first = out;
}
if (args.out) writeNpy(args.out, first[session.outputNames[0]]);
process.stdout.write(JSON.stringify({ times_ms: times, load_ms: loadMs, version }) + '\n');
