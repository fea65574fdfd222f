// kafkajs 2.2.4 twin of tests/interop/failover_consumer.py (see it for the events written to
// OUT and the commit rule), for test_mirroring_failover_story.py:
//   node failover_consumer.js BOOTSTRAP GROUP TOPIC OUT COMMIT_EVERY RATE
// Lines are appended synchronously, so a SIGKILL loses nothing already written.
'use strict'
const fs = require('node:fs')
const { Kafka, logLevel } = require('kafkajs')
const { sleep } = require('./common')

async function main ([bootstrap, group, topic, out, commitEveryArg, rateArg]) {
  const commitEvery = Number(commitEveryArg)
  const gap = Number(rateArg) > 0 ? 1000 / Number(rateArg) : 0
  const log = ev => fs.appendFileSync(out, JSON.stringify(ev) + '\n')
  const kafka = new Kafka({ brokers: bootstrap.split(','), clientId: `failover-${group}`,
    logLevel: logLevel.NOTHING, retry: { retries: 5, initialRetryTime: 100 } })
  const consumer = kafka.consumer({ groupId: group, sessionTimeout: 6000, heartbeatInterval: 500,
    rebalanceTimeout: 20000, maxWaitTimeInMs: 100, maxBytesPerPartition: 2048, allowAutoTopicCreation: false })
  consumer.on(consumer.events.CRASH, e => log({ ev: 'error', error: String(e.payload.error) }))
  let pending = new Map()
  let n = 0
  let next = Date.now()
  await consumer.connect()
  await consumer.subscribe({ topic, fromBeginning: true })
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ partition, message }) => {
      if (gap) {  // a pace, as the Python twin's
        const now = Date.now()
        if (next > now) await sleep(next - now)
        next = Math.max(next, now) + gap
      }
      const offset = Number(message.offset)
      log({ ev: 'rec', p: partition, o: offset })
      pending.set(partition, offset + 1)
      if (++n % commitEvery) return
      const offsets = Object.fromEntries(pending)
      try {
        await consumer.commitOffsets([...pending].map(([p, o]) => ({ topic, partition: p, offset: String(o) })))
        log({ ev: 'commit', offsets })
        pending = new Map()
      } catch (e) {
        log({ ev: 'commit_failed', error: String(e) })
      }
    }
  })
}

main(process.argv.slice(2)).catch(e => {
  console.error(e && e.stack ? e.stack : String(e))
  process.exit(1)
})
