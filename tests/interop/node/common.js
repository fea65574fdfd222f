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

// The tests' neutral security settings (tests/interop/secconf.py, Security.node()): {protocol,
// mechanism, username, password, ca, cert, key}, the last three PEM file names.
const usesTls = sec => !!sec && (sec.protocol === 'SSL' || sec.protocol === 'SASL_SSL')
const usesSasl = sec => !!sec && sec.protocol.startsWith('SASL_')

// Node's tls.connect options of those settings (both clients pass them on as they are).
function tlsOptions (sec) {
  const fs = require('node:fs')
  const o = { ca: [fs.readFileSync(sec.ca)] }
  if (sec.cert) {
    o.cert = fs.readFileSync(sec.cert)
    o.key = fs.readFileSync(sec.key)
  }
  return o
}

// [{name, code, message}] of an error and everything it wraps (cause, originalError, errors),
// so that a test can tell an authentication failure from a TLS or network one.
function errorChain (err, out = [], depth = 0) {
  if (!err || depth > 8) return out
  out.push({ name: err.name || err.constructor?.name, code: err.code === undefined ? null : String(err.code),
    message: String(err.message) })
  for (const e of [err.cause, err.originalError, ...(err.errors || [])]) errorChain(e, out, depth + 1)
  return out
}

module.exports = { run, emit, describe, emitOffsets, headersToObject, str, sleep, usesTls, usesSasl, tlsOptions,
  errorChain }
