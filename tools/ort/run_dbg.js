#!/usr/bin/env node
// Run an ONNX model with ONNX Runtime (CPU) on raw tensors.
//
//   node tools/ort/run.js MODEL.onnx IN_DIR OUT_DIR [IN_DIR OUT_DIR]...
//
// Each IN_DIR/OUT_DIR pair is one run of the same session: several input sets
// cost one process and one model load.
// IN_DIR/inputs.json:  [{"name": "x", "dtype": "float32", "dims": [1, 3], "file": "input_0.bin"}]
// (files hold raw little-endian elements; bool is one byte per element).
// OUT_DIR receives outputs.json in the same format plus output_N.bin, one per
// model output in the model's order.  Exit status: 0 ok, 1 run failed, 2 usage.
'use strict';

const fs = require('fs');
const path = require('path');

const ARRAYS = {
    float32: Float32Array,
    float64: Float64Array,
    int8: Int8Array,
    uint8: Uint8Array,
    int16: Int16Array,
    uint16: Uint16Array,
    int32: Int32Array,
    uint32: Uint32Array,
    int64: BigInt64Array,
    uint64: BigUint64Array,
    bool: Uint8Array,
    float16: Uint16Array,
};

function die(code, msg) {
    process.stderr.write(`run.js: ${msg}\n`);
    process.exit(code);
}

function readInputs(inDir) {
    const specPath = path.join(inDir, 'inputs.json');
    let spec;
    try {
        spec = JSON.parse(fs.readFileSync(specPath, 'utf8'));
    } catch (e) {
        die(2, `${specPath}: ${e.message}`);
    }
    if (!Array.isArray(spec))
        die(2, `${specPath}: expected a JSON array of {name, dtype, dims, file}`);
    return spec.map((s, i) => {
        const Arr = ARRAYS[s.dtype];
        if (!Arr)
            die(2, `${specPath}: entry ${i} (${s.name}): unknown dtype "${s.dtype}"; use one of ${Object.keys(ARRAYS).join(', ')}`);
        const dims = (s.dims || []).map(Number);
        const count = dims.reduce((a, b) => a * b, 1);
        const buf = fs.readFileSync(path.join(inDir, s.file));
        if (buf.length !== count * Arr.BYTES_PER_ELEMENT)
            die(2, `${s.file}: ${buf.length} bytes, but ${s.dtype}[${dims.join(', ')}] needs ${count * Arr.BYTES_PER_ELEMENT}`);
        // Copy into an aligned buffer: a Node Buffer may start at any offset.
        const data = new Arr(count);
        new Uint8Array(data.buffer).set(buf);
        return { name: s.name, dtype: s.dtype, dims, data };
    });
}

async function main() {
    const argv = process.argv.slice(2);
    if (argv.length < 3 || argv.length % 2 !== 1)
        die(2, 'usage: node run.js MODEL.onnx IN_DIR OUT_DIR [IN_DIR OUT_DIR]...');
    const model = argv[0];
    let ort;
    try {
        ort = require('onnxruntime-node');
    } catch (e) {
        die(1, `cannot load onnxruntime-node (${e.message}); run "ONNXRUNTIME_NODE_INSTALL=skip npm ci" in ${__dirname}`);
    }
    let session;
    try {
        session = await ort.InferenceSession.create(model, { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: process.env.OPTLVL || "all" });
    } catch (e) {
        die(1, `${model}: ONNX Runtime rejected the model: ${e.message}`);
    }
    for (let k = 1; k < argv.length; k += 2)
        await runOne(ort, session, model, argv[k], argv[k + 1]);
}

async function runOne(ort, session, model, inDir, outDir) {
    const inputs = readInputs(inDir);
    const feeds = {};
    for (const t of inputs) {
        const data = t.dtype === 'bool' ? Uint8Array.from(t.data, (v) => (v ? 1 : 0)) : t.data;
        feeds[t.name] = new ort.Tensor(t.dtype, data, t.dims);
    }
    let results;
    try {
        results = await session.run(feeds);
    } catch (e) {
        die(1, `${model}: run failed on ${inDir}: ${e.message}`);
    }
    fs.mkdirSync(outDir, { recursive: true });
    const out = session.outputNames.map((name, i) => {
        const t = results[name];
        const file = `output_${i}.bin`;
        let bytes;
        if (t.type === 'bool') {
            bytes = Buffer.from(Uint8Array.from(t.data, (v) => (v ? 1 : 0)));
        } else if (t.type === 'string') {
            die(1, `output ${name}: string tensors are not supported by this runner`);
        } else {
            bytes = Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
        }
        fs.writeFileSync(path.join(outDir, file), bytes);
        return { name, dtype: t.type, dims: t.dims.map(Number), file };
    });
    fs.writeFileSync(path.join(outDir, 'outputs.json'), JSON.stringify(out, null, 1) + '\n');
}

main().catch((e) => die(1, e.stack || String(e)));
