// @platformatic/kafka 1.35.0 driver for tests/interop (see clients.py for the request and
// output format). Producers are non-idempotent (idempotent: false, so no InitProducerId);
// "consume" uses Consumer.fetch() and listOffsets(), which never join a consumer group.
'use strict'
const { Admin, Producer, Consumer } = require('@platformatic/kafka')
const { run, str, describe, emitOffsets, sleep, usesTls, usesSasl, tlsOptions, errorChain } = require('./common')

// The tls and sasl options of req.security (common.js).
function securityOptions (sec) {
  if (!sec) return {}
  const o = { connectTimeout: 5000 }
  if (usesTls(sec)) o.tls = tlsOptions(sec)
  if (usesSasl(sec)) o.sasl = { mechanism: sec.mechanism, username: sec.username, password: sec.password }
  return o
}

const base = req => ({ clientId: 'interop-platformatic', bootstrapBrokers: req.brokers, retries: req.retries ?? 3,
  retryDelay: 100, ...securityOptions(req.security) })
const buf = s => (s === null || s === undefined) ? null : Buffer.from(s, 'utf8')

async function create (req, emit) {
  const admin = new Admin(base(req))
  try {
    await admin.createTopics({
      topics: [req.topic], partitions: req.partitions, replicas: 1,
      configs: Object.entries(req.configs || {}).map(([name, value]) => ({ name, value: String(value) }))
    })
  } finally {
    await admin.close()
  }
}

async function deleteTopic (req) {
  const admin = new Admin(base(req))
  try {
    await admin.deleteTopics({ topics: [req.topic] })
  } finally {
    await admin.close()
  }
}

async function partitions (req, emit) {
  const admin = new Admin(base(req))
  try {
    const md = await admin.metadata({ topics: [req.topic] })
    emit({ partitions: md.topics.get(req.topic).partitionsCount })
  } finally {
    await admin.close()
  }
}

async function produce (req, emit) {
  const producer = new Producer({ ...base(req), idempotent: false, acks: -1, compression: req.codec, autocreateTopics: false })
  try {
    const messages = req.records.map(r => {
      const headers = new Map()
      for (const [k, v] of r.headers || []) headers.set(buf(k), buf(v))  // distinct Buffer keys: duplicates kept
      const m = { topic: req.topic, partition: r.partition, key: buf(r.key), value: buf(r.value), headers }
      if (r.timestamp !== null && r.timestamp !== undefined) m.timestamp = BigInt(r.timestamp)
      return m
    })
    let res
    try {
      res = await producer.send({ messages })
    } catch (e) {
      const detail = describe(e).replace(/\n\s+at .*/g, '')
      for (const _ of req.records) emit({ error: detail })
      return
    }
    emitOffsets(req.records, res.offsets.map(o => [o.partition, o.offset]), emit)
  } finally {
    await producer.close()
  }
}

function consumerFor (req) {
  // groupId is required by the constructor; fetch() and listOffsets() never use it
  return new Consumer({ ...base(req), groupId: 'interop-unused', autocommit: false })
}

async function listOffset (consumer, topic, partition, timestamp) {
  const res = await consumer.listOffsetsWithTimestamps({ topics: [topic], partitions: { [topic]: [partition] }, timestamp: BigInt(timestamp) })
  return Number(res.get(topic).get(partition).offset)
}

async function offset (req, emit) {
  const consumer = consumerFor(req)
  try {
    emit({ offset: await listOffset(consumer, req.topic, req.partition, req.timestamp) })
  } finally {
    await consumer.close()
  }
}

async function consume (req, emit) {
  const consumer = consumerFor(req)
  try {
    let position
    if (req.start === 'earliest') position = await listOffset(consumer, req.topic, req.partition, -2)
    else if (req.start === 'latest') position = await listOffset(consumer, req.topic, req.partition, -1)
    else if (req.timestamp !== undefined) position = await listOffset(consumer, req.topic, req.partition, req.timestamp)
    else position = req.offset
    if (req.start === 'latest') emit({ ready: position })
    const md = await consumer.metadata({ topics: [req.topic] })
    const topic = md.topics.get(req.topic)
    const leader = topic.partitions[req.partition].leader
    const deadline = Date.now() + (req.timeoutMs || 20000)
    const maxBytes = req.big ? 16 << 20 : 1 << 20
    let got = 0
    while (got < req.count && Date.now() < deadline) {
      const resp = await consumer.fetch({
        node: leader, maxWaitTime: 200, minBytes: 1, maxBytes,
        topics: [{ topicId: topic.id, partitions: [{ partition: req.partition, currentLeaderEpoch: -1, fetchOffset: BigInt(position), lastFetchedEpoch: -1, partitionMaxBytes: maxBytes }] }]
      })
      for (const t of resp.responses) {
        for (const p of t.partitions) {
          if (p.errorCode !== 0) throw new Error(`fetch error code ${p.errorCode}`)
          for (const batch of p.records || []) {
            if (batch.attributes & 0x20) continue  // control batch
            for (const r of batch.records) {
              const off = Number(batch.firstOffset) + r.offsetDelta
              if (off < position) continue
              emit({ partition: req.partition, offset: off, key: str(r.key), value: str(r.value),
                headers: r.headers.map(([k, v]) => [str(k), str(v)]),
                // attributes bit 3: log-append time, the batch's max timestamp for every record
                timestamp: Number(batch.attributes & 0x08 ? batch.maxTimestamp : batch.firstTimestamp + r.timestampDelta) })
              position = off + 1
              got++
            }
          }
        }
      }
    }
  } finally {
    await consumer.close()
  }
}

// Asks for metadata with an admin client: {ok: true}, or {failed: errorChain} (the
// authentication and TLS tests look at the error kinds @platformatic/kafka reports).
async function probe (req, emit) {
  const admin = new Admin(base(req))
  try {
    await admin.metadata({ topics: [] })
    emit({ ok: true })
  } catch (e) {
    emit({ failed: errorChain(e) })
  } finally {
    await admin.close().catch(() => {})
  }
}

// One producer sending one record to partition 0 of req.topic every req.intervalMs for
// req.durationMs (connections.max.reauth.ms tests): one line per record, {value, offset} or
// {value, error}, then {counts: {connecting, handshakes}} from the client's diagnostics
// channels (connections opened, SaslHandshake requests sent): more handshakes than
// connections means it re-authenticated in-band (it does so at 80% of the session lifetime).
async function stream (req, emit) {
  const dc = require('node:diagnostics_channel')
  const counts = { connecting: 0, handshakes: 0 }
  const connects = { start: ctx => { if (ctx.operation === 'connect') counts.connecting++ } }
  const apis = { start: ctx => { if (ctx.apiKey === 17) counts.handshakes++ } }
  dc.tracingChannel('plt:kafka:connections:connects').subscribe(connects)
  dc.tracingChannel('plt:kafka:connections:api').subscribe(apis)
  const producer = new Producer({ ...base(req), idempotent: false, acks: -1, autocreateTopics: false })
  try {
    const end = Date.now() + req.durationMs
    for (let i = 0; Date.now() < end; i++) {
      const value = `${req.tag}-${i}`
      try {
        const res = await producer.send({ messages: [{ topic: req.topic, partition: 0, value: Buffer.from(value) }] })
        emit({ value, offset: Number(res.offsets[0].offset) })
      } catch (e) {
        emit({ value, error: describe(e) })
      }
      await sleep(req.intervalMs)
    }
  } finally {
    await producer.close()
    dc.tracingChannel('plt:kafka:connections:connects').unsubscribe(connects)
    dc.tracingChannel('plt:kafka:connections:api').unsubscribe(apis)
  }
  emit({ counts })
}

run({ create, delete: deleteTopic, partitions, produce, offset, consume, probe, stream })
