// Runs one Node.js Kafka client scenario against capture_broker (called by capture_all.sh).
//
// Usage: node tests/golden/drive_node.mjs <kafkajs|platformatic> <scenario> <port>
// The clients come from the repository's package.json (npm ci at the repository root).
// Records, as golden_test.cc expects them: record i (0 <= i < 10) has key "k<i>",
// value "golden-<client>-<scenario>-<i>" and header "h" = "v<i>".
import { createRequire } from 'node:module'

process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1'
const require = createRequire(import.meta.url)
const [client, scenario, port] = process.argv.slice(2)
const broker = `127.0.0.1:${port}`
const TOPIC = 'golden'
const COUNT = 10

function records () {
  const out = []
  for (let i = 0; i < COUNT; i++) {
    out.push({ key: `k${i}`, value: `golden-${client}-${scenario}-${i}`, headers: { h: `v${i}` } })
  }
  return out
}

async function kafkajs () {
  const { Kafka, CompressionTypes, logLevel } = require('kafkajs')
  // clientId is left at kafkajs' default ("kafkajs") on purpose: the test checks it.
  const idempotent = scenario === 'idempotent'
  // An idempotent kafkajs producer warns about a retry limit, so it keeps the default.
  const retry = idempotent ? undefined : { retries: 2 }
  const kafka = new Kafka({ brokers: [broker], logLevel: logLevel.WARN, retry })
  const producer = kafka.producer({ allowAutoTopicCreation: false, idempotent, maxInFlightRequests: idempotent ? 1 : undefined })
  await producer.connect()
  const compression = { none: CompressionTypes.None, gzip: CompressionTypes.GZIP, idempotent: CompressionTypes.None }[scenario]
  if (compression === undefined) throw new Error(`kafkajs: no scenario ${scenario}`)
  await producer.send({ topic: TOPIC, compression, acks: -1, messages: records() })
  await producer.disconnect()
}

async function platformatic () {
  const { Producer, stringSerializers } = require('@platformatic/kafka')
  const producer = new Producer({
    clientId: 'golden-platformatic',
    bootstrapBrokers: [broker],
    serializers: stringSerializers,
    compression: scenario === 'idempotent' ? 'none' : scenario,
    idempotent: scenario === 'idempotent',
    retries: 2
  })
  await producer.send({ messages: records().map(r => ({ topic: TOPIC, ...r })) })
  await producer.close()
}

const run = { kafkajs, platformatic }[client]
if (!run) throw new Error(`unknown client ${client}`)
const timer = setTimeout(() => { console.error(`${client} ${scenario}: timed out`); process.exit(1) }, 20000)
run().then(() => { clearTimeout(timer) }, err => { console.error(err); process.exit(1) })
