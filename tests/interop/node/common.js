// Shared by the interop node scripts: read one JSON request from stdin, write JSON lines.
'use strict'

function readRequest () {
  return new Promise((resolve, reject) => {
    const chunks = []
    process.stdin.on('data', c => chunks.push(c))
    process.stdin.on('end', () => {
      try { resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))) } catch (e) { reject(e) }
    })
    process.stdin.on('error', reject)
  })
}

function emit (obj) {
  process.stdout.write(JSON.stringify(obj, (k, v) => typeof v === 'bigint' ? Number(v) : v) + '\n')
}

// Runs ops[request.op](request, emit).
// One-shot (default): one JSON request on stdin; exit 0 after the output is flushed, 1 with the
// error on stderr.
// --serve: one JSON request per stdin line, each with an "id"; requests run concurrently, every
// output line carries the request's id and each request ends with {"id", "end": true} (plus
// "error" when it failed). Loading a client takes seconds on a busy machine: the tests keep one
// serving process per client.
function run (ops) {
  const call = (req, out) => {
    if (!ops[req.op]) return Promise.reject(new Error(`unknown op ${req.op}`))
    return ops[req.op](req, out)
  }
  if (process.argv.includes('--serve')) {
    const rl = require('node:readline').createInterface({ input: process.stdin })
    rl.on('line', line => {
      if (!line.trim()) return
      const req = JSON.parse(line)
      const out = obj => emit({ ...obj, id: req.id })
      call(req, out).then(() => out({ end: true }), err => out({ end: true, error: describe(err) }))
    })
    rl.on('close', () => process.stdout.write('', () => process.exit(0)))
    return
  }
  readRequest().then(req => call(req, emit)).then(
    () => process.stdout.write('', () => process.exit(0)),
    err => { console.error(describe(err)); process.exit(1) })
}

// The error with everything a client nests in it (AggregateError.errors, response bodies).
function describe (err) {
  if (!err) return String(err)
  const parts = [err.stack || String(err)]
  for (const e of err.errors || []) parts.push('  caused by: ' + describe(e))
  if (err.response) parts.push('  response: ' + JSON.stringify(err.response, (k, v) => typeof v === 'bigint' ? String(v) : v))
  if (err.type) parts.push('  type: ' + err.type)
  return parts.join('\n')
}

// [[k, v], ...] -> { k: v | [v, ...] } (adjacent duplicates keep their order)
function headersToObject (list) {
  const out = {}
  for (const [k, v] of list || []) {
    if (k in out) out[k] = [].concat(out[k], v)
    else out[k] = v
  }
  return out
}

// Emits one {partition, offset} per produced record: a send makes one batch per partition with
// the records in order, so a record's offset is its partition's base offset plus its index there.
function emitOffsets (records, baseOffsets, emit) {
  const next = new Map([...baseOffsets].map(([p, o]) => [p, BigInt(o)]))
  for (const r of records) {
    const o = next.get(r.partition)
    next.set(r.partition, o + 1n)
    emit({ partition: r.partition, offset: Number(o) })
  }
}

const str = b => (b === null || b === undefined) ? null : Buffer.from(b).toString('utf8')

function sleep (ms) { return new Promise(resolve => setTimeout(resolve, ms)) }

module.exports = { run, emit, describe, emitOffsets, headersToObject, str, sleep }
