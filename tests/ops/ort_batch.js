#!/usr/bin/env node
// Run many ONNX models in one ONNX Runtime process: the operator table exports hundreds
// of small files, and a node start-up plus runtime load costs more than running one.
//
//   node tests/ops/ort_batch.js JOBS.json RESULTS.json
//
// JOBS.json: [{"model": "a.onnx", "runs": [["IN_DIR", "OUT_DIR"], ...]}, ...], the
// IN_DIR/OUT_DIR layout of tools/ort/run.js (inputs.json + raw little-endian files in,
// outputs.json + output_N.bin out).  RESULTS.json gets one entry per job, in order:
// {"ok": true} or {"ok": false, "error": "..."} — a model ONNX Runtime rejects or
// fails to run is that job's result, not the end of the batch.  onnxruntime-node is
// looked up beside tools/ort/run.js.  Exit status: 0 the batch ran, 2 usage error.
'use strict';

const fs = require('fs');
const path = require('path');

const ARRAYS = {
    float32: Float32Array, float64: Float64Array, int8: Int8Array, uint8: Uint8Array,
    int16: Int16Array, uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array,
    int64: BigInt64Array, uint64: BigUint64Array, bool: Uint8Array, float16: Uint16Array,
};

function usage(msg) {
    process.stderr.write(`ort_batch.js: ${msg}\n`);
    process.exit(2);
}

function readInputs(inDir) {
    const spec = JSON.parse(fs.readFileSync(path.join(inDir, 'inputs.json'), 'utf8'));
    return spec.map((s) => {
        const Arr = ARRAYS[s.dtype];
        if (!Arr)
            throw new Error(`${inDir}: input ${s.name}: unknown dtype "${s.dtype}"`);
        const dims = (s.dims || []).map(Number);
        const count = dims.reduce((a, b) => a * b, 1);
        const buf = fs.readFileSync(path.join(inDir, s.file));
        if (buf.length !== count * Arr.BYTES_PER_ELEMENT)
            throw new Error(`${inDir}/${s.file}: ${buf.length} bytes, ${s.dtype}[${dims}] needs ${count * Arr.BYTES_PER_ELEMENT}`);
        const data = new Arr(count); // aligned copy: a Buffer may start at any offset
        new Uint8Array(data.buffer).set(buf);
        return { name: s.name, dtype: s.dtype, dims, data };
    });
}

async function runOne(ort, session, inDir, outDir) {
    const feeds = {};
    for (const t of readInputs(inDir))
        feeds[t.name] = new ort.Tensor(t.dtype, t.data, t.dims);
    const results = await session.run(feeds);
    fs.mkdirSync(outDir, { recursive: true });
    const out = session.outputNames.map((name, i) => {
        const t = results[name];
        if (t.type === 'string')
            throw new Error(`output ${name}: string tensors are not supported by this runner`);
        const file = `output_${i}.bin`;
        const bytes = t.type === 'bool' ? Buffer.from(Uint8Array.from(t.data, (v) => (v ? 1 : 0)))
            : Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
        fs.writeFileSync(path.join(outDir, file), bytes);
        return { name, dtype: t.type, dims: t.dims.map(Number), file };
    });
    fs.writeFileSync(path.join(outDir, 'outputs.json'), JSON.stringify(out) + '\n');
}

async function main() {
    const argv = process.argv.slice(2);
    if (argv.length !== 2)
        usage('usage: node ort_batch.js JOBS.json RESULTS.json');
    let jobs;
    try {
        jobs = JSON.parse(fs.readFileSync(argv[0], 'utf8'));
    } catch (e) {
        usage(`${argv[0]}: ${e.message}`);
    }
    if (!Array.isArray(jobs))
        usage(`${argv[0]}: expected a JSON array of {model, runs}`);
    const ortDir = path.join(__dirname, '..', '..', 'tools', 'ort', 'node_modules', 'onnxruntime-node');
    let ort;
    try {
        ort = require(ortDir);
    } catch (e) {
        usage(`cannot load onnxruntime-node from ${ortDir} (${e.message}); run "ONNXRUNTIME_NODE_INSTALL=skip npm ci" in tools/ort`);
    }
    const results = [];
    for (const job of jobs) {
        let session = null;
        try {
            session = await ort.InferenceSession.create(job.model, { intraOpNumThreads: 1, interOpNumThreads: 1 });
        } catch (e) {
            results.push({ ok: false, error: `ONNX Runtime rejected the model: ${e.message}` });
            continue;
        }
        let error = null;
        for (const [inDir, outDir] of job.runs) {
            try {
                await runOne(ort, session, inDir, outDir);
            } catch (e) {
                error = `run failed on ${path.basename(inDir)}: ${e.message}`;
                break;
            }
        }
        if (session.release)
            await session.release();
        results.push(error ? { ok: false, error } : { ok: true });
    }
    fs.writeFileSync(argv[1], JSON.stringify(results) + '\n');
}

main().catch((e) => usage(e.stack || String(e)));
