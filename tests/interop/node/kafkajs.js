// kafkajs 2.2.4 driver for tests/interop (see clients.py for the request and output format).
// kafkajs has no group-less consumer, so "consume" uses the Broker.fetch and ListOffsets paths
// that its consumer runs on, through a cluster made by the Kafka object itself; "group" is its
// group consumer (tests/interop/test_groups.py).
'use strict'
const { Kafka, CompressionTypes, logLevel } = require('kafkajs')
const { run, describe, headersToObject, str, emitOffsets, sleep, usesTls, usesSasl, tlsOptions, errorChain } = require('./common')

const CODECS = { none: CompressionTypes.None, gzip: CompressionTypes.GZIP }

// kafkajs' ssl and sasl options of req.security (common.js), with short connection and
// authentication timeouts so that a refused client fails fast.
function securityOptions (sec) {
  if (!sec) return {}
  const o = { connectionTimeout: 5000, authenticationTimeout: 5000 }
  if (usesTls(sec)) o.ssl = tlsOptions(sec)
  if (usesSasl(sec)) o.sasl = { mechanism: sec.mechanism.toLowerCase(), username: sec.username, password: sec.password }
  return o
}

function kafkaFor (req, logCreator) {
  return new Kafka({ brokers: req.brokers, clientId: req.clientId ?? 'interop-kafkajs',
    logLevel: logCreator ? logLevel.DEBUG : logLevel.NOTHING, logCreator,
    retry: { retries: req.retries ?? 3, initialRetryTime: 100 }, ...securityOptions(req.security) })
}

function headerList (headers) {
  const out = []
  for (const [k, v] of Object.entries(headers || {})) {
    for (const x of [].concat(v)) out.push([k, str(x)])
  }
  return out
}

async function withAdmin (kafka, f) {
  const admin = kafka.admin()
  await admin.connect()
  try { return await f(admin) } finally { await admin.disconnect() }
}

async function create (req, kafka, emit) {
  await withAdmin(kafka, async admin => {
    const created = await admin.createTopics({
      waitForLeaders: true,
      topics: [{ topic: req.topic, numPartitions: req.partitions, replicationFactor: 1,
        configEntries: Object.entries(req.configs || {}).map(([name, value]) => ({ name, value: String(value) })) }]
    })
    if (!created) throw new Error(`topic ${req.topic} already existed`)
  })
}

async function deleteTopic (req, kafka) {
  await withAdmin(kafka, admin => admin.deleteTopics({ topics: [req.topic] }))
}

async function partitions (req, kafka, emit) {
  await withAdmin(kafka, async admin => {
    const md = await admin.fetchTopicMetadata({ topics: [req.topic] })
    emit({ partitions: md.topics[0].partitions.length })
  })
}

async function produce (req, kafka, emit) {
  if (!(req.codec in CODECS)) throw new Error(`kafkajs: no codec ${req.codec}`)
  const producer = kafka.producer({ idempotent: false, allowAutoTopicCreation: false })
  await producer.connect()
  try {
    const messages = req.records.map(r => {
      const m = { key: r.key, value: r.value, partition: r.partition, headers: headersToObject(r.headers) }
      if (r.timestamp !== null && r.timestamp !== undefined) m.timestamp = String(r.timestamp)
      return m
    })
    let meta
    try {
      meta = await producer.send({ topic: req.topic, compression: CODECS[req.codec], acks: -1, messages })
    } catch (e) {
      for (const _ of req.records) emit({ error: `${e.name}: ${e.message} (${e.type || ''})` })
      return
    }
    emitOffsets(req.records, meta.map(m => [m.partition, m.baseOffset]), emit)
  } finally {
    await producer.disconnect()
  }
}

// A transactional producer (tests/interop/test_transactions.py): req.batches in order, each
// one transaction of its records, committed or aborted as it says; one line per transaction.
async function txn (req, kafka, emit) {
  const producer = kafka.producer({ transactionalId: req.transactionalId, idempotent: true,
    maxInFlightRequests: 1, allowAutoTopicCreation: false })
  await producer.connect()
  try {
    for (const batch of req.batches) {
      const t = await producer.transaction()
      try {
        await t.send({ topic: req.topic, acks: -1,
          messages: batch.records.map(r => ({ key: r.key, value: r.value, partition: r.partition })) })
      } catch (e) {
        await t.abort()
        throw e
      }
      if (batch.commit) await t.commit()
      else await t.abort()
      emit({ done: batch.commit ? 'commit' : 'abort' })
    }
  } finally {
    await producer.disconnect()
  }
}

async function offsetForTime (kafka, topic, partition, ts) {
  return withAdmin(kafka, async admin => {
    const res = await admin.fetchTopicOffsetsByTimestamp(topic, ts)
    return Number(res.find(p => p.partition === partition).offset)
  })
}

async function offset (req, kafka, emit) {
  emit({ offset: await offsetForTime(kafka, req.topic, req.partition, req.timestamp) })
}

async function consume (req, kafka, emit) {
  let position
  if (req.start === 'earliest' || req.start === 'latest') {
    position = await withAdmin(kafka, async admin => {
      const offs = await admin.fetchTopicOffsets(req.topic)
      const p = offs.find(o => o.partition === req.partition)
      return Number(req.start === 'earliest' ? p.low : p.high)
    })
  } else if (req.timestamp !== undefined) {
    position = await offsetForTime(kafka, req.topic, req.partition, req.timestamp)
  } else {
    position = req.offset
  }
  if (req.start === 'latest') emit({ ready: position })
  const sym = Object.getOwnPropertySymbols(kafka).find(s => s.description === 'private:Kafka:createCluster')
  const cluster = kafka[sym]({ allowAutoTopicCreation: false })
  await cluster.connect()
  try {
    await cluster.addTargetTopic(req.topic)
    const leaders = cluster.findLeaderForPartitions(req.topic, [req.partition])
    const broker = await cluster.findBroker({ nodeId: Object.keys(leaders)[0] })
    const deadline = Date.now() + (req.timeoutMs || 20000)
    let got = 0
    while (got < req.count && Date.now() < deadline) {
      const resp = await broker.fetch({
        replicaId: -1, isolationLevel: 1, maxWaitTime: 200, minBytes: 1,
        maxBytes: req.big ? 16 << 20 : 1 << 20,
        topics: [{ topic: req.topic, partitions: [{ partition: req.partition, fetchOffset: String(position), maxBytes: req.big ? 16 << 20 : 1 << 20 }] }]
      })
      for (const t of resp.responses) {
        for (const p of t.partitions) {
          if (p.errorCode !== 0) throw new Error(`fetch error code ${p.errorCode}`)
          for (const m of p.messages) {
            if (m.isControlRecord || Number(m.offset) < position) continue
            emit({ partition: req.partition, offset: Number(m.offset), key: str(m.key), value: str(m.value),
              headers: headerList(m.headers), timestamp: Number(m.timestamp) })
            position = Number(m.offset) + 1
            got++
          }
        }
      }
    }
  } finally {
    await cluster.disconnect()
  }
}

// A group consumer: joins req.group subscribed to req.topic (from the beginning), consumes
// req.count records with autoCommit off, commits the next offset of every partition it read
// (commitOffsets), then disconnect() (stop: LeaveGroup). Output: {join: {memberId, leaderId,
// isLeader, assignment: {topic: [partitions]}, protocol}} per join, one line per record,
// {committed: {partition: offset}}, {left: true}.
async function group (req, kafka, emit) {
  const consumer = kafka.consumer({
    groupId: req.group, sessionTimeout: req.sessionTimeoutMs || 6000,
    heartbeatInterval: req.heartbeatIntervalMs || 500, rebalanceTimeout: 20000,
    maxWaitTimeInMs: 100, allowAutoTopicCreation: false, retry: { retries: 5, initialRetryTime: 100 }
  })
  let finish
  const finished = new Promise(resolve => { finish = resolve })
  consumer.on(consumer.events.GROUP_JOIN, e => emit({
    join: { memberId: e.payload.memberId, leaderId: e.payload.leaderId, isLeader: e.payload.isLeader,
      assignment: e.payload.memberAssignment, protocol: e.payload.groupProtocol }
  }))
  consumer.on(consumer.events.CRASH, e => finish(new Error(`consumer crashed: ${describe(e.payload.error)}`)))
  const next = new Map()
  let got = 0
  await consumer.connect()
  try {
    await consumer.subscribe({ topic: req.topic, fromBeginning: true })
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        emit({ partition, offset: Number(message.offset), key: str(message.key), value: str(message.value),
          headers: headerList(message.headers), timestamp: Number(message.timestamp) })
        next.set(partition, Number(message.offset) + 1)
        if (++got === req.count) finish(null)
      }
    })
    const timer = setTimeout(() => finish(new Error(`${got} of ${req.count} records in ${req.timeoutMs} ms`)),
      req.timeoutMs || 20000)
    const err = await finished
    clearTimeout(timer)
    if (err) throw err
    await consumer.commitOffsets([...next].map(([partition, offset]) =>
      ({ topic: req.topic, partition, offset: String(offset) })))
    emit({ committed: Object.fromEntries(next) })
  } finally {
    await consumer.disconnect()
  }
  emit({ left: true })
}

// Connects an admin client and asks for metadata: {ok: true}, or {failed: errorChain} (the
// authentication and TLS tests look at the error kinds kafkajs reports).
async function probe (req, kafka, emit) {
  const admin = kafka.admin()
  try {
    await admin.connect()
    await admin.fetchTopicMetadata({ topics: [] })
    emit({ ok: true })
  } catch (e) {
    emit({ failed: errorChain(e) })
  } finally {
    await admin.disconnect().catch(() => {})
  }
}

// One producer sending one record to partition 0 of req.topic every req.intervalMs for
// req.durationMs (connections.max.reauth.ms tests): one line per record, {value, offset} or
// {value, error}, then {counts: {connecting, authenticated}} from kafkajs' debug log: more
// authentications than connections means it re-authenticated in-band.
async function stream (req, emit) {
  const counts = { connecting: 0, authenticated: 0 }
  const logCreator = () => ({ log }) => {
    if (log.message === 'Connecting') counts.connecting++
    else if (/authentication successful/.test(log.message)) counts.authenticated++
  }
  const producer = kafkaFor(req, logCreator).producer({ idempotent: false, allowAutoTopicCreation: false })
  await producer.connect()
  try {
    const end = Date.now() + req.durationMs
    for (let i = 0; Date.now() < end; i++) {
      const value = `${req.tag}-${i}`
      try {
        const meta = await producer.send({ topic: req.topic, acks: -1, messages: [{ value, partition: 0 }] })
        emit({ value, offset: Number(meta[0].baseOffset) })
      } catch (e) {
        emit({ value, error: describe(e) })
      }
      await sleep(req.intervalMs)
    }
  } finally {
    await producer.disconnect()
  }
  emit({ counts })
}

// A producer sending req.batch records of req.size bytes per request to req.topic as fast as the
// broker lets it, for req.seconds (client quotas, test_quotas.py): one line {t, bytes} per
// acknowledged request, t in ms since the start.
async function flood (req, kafka, emit) {
  const producer = kafka.producer({ allowAutoTopicCreation: false })
  await producer.connect()
  try {
    const messages = Array.from({ length: req.batch }, () => ({ value: Buffer.alloc(req.size, 120) }))
    const start = Date.now()
    while (Date.now() - start < req.seconds * 1000) {
      await producer.send({ topic: req.topic, acks: 1, messages })
      emit({ t: Date.now() - start, bytes: req.batch * req.size })
    }
  } finally {
    await producer.disconnect()
  }
}

const withKafka = f => (req, emit) => f(req, kafkaFor(req), emit)
run({ create: withKafka(create), delete: withKafka(deleteTopic), partitions: withKafka(partitions), produce: withKafka(produce),
  offset: withKafka(offset), consume: withKafka(consume), group: withKafka(group), txn: withKafka(txn),
  probe: withKafka(probe), flood: withKafka(flood), stream })
