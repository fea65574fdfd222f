// kafkajs 2.2.4's ACL admin calls for tests/interop/test_acls.py: one JSON request on stdin
// ({"op": "create" | "describe" | "delete", "brokers": [...], ...}), JSON lines out. Broker
// errors come out as {"error_type": "<kafkajs error type>"} rather than a failed run.
'use strict'
const { Kafka, logLevel } = require('kafkajs')
const { run } = require('./common')

async function withAdmin (req, f, emit) {
  const kafka = new Kafka({ brokers: req.brokers, clientId: 'interop-kafkajs-acls',
    logLevel: logLevel.NOTHING, retry: { retries: 2, initialRetryTime: 100 } })
  const admin = kafka.admin()
  await admin.connect()
  try {
    emit(await f(admin))
  } catch (e) {
    // kafkajs wraps what the broker said; the type is Kafka's error name.
    let err = e
    while (err && !err.type && err.cause) err = err.cause
    if (!err || !err.type) throw e
    emit({ error_type: err.type })
  } finally {
    await admin.disconnect()
  }
}

// JSON has no undefined: a null filter field is left out, which kafkajs sends as null.
function noNulls (obj) {
  return Object.fromEntries(Object.entries(obj).filter(([k, v]) => v !== null))
}

run({
  create: (req, emit) => withAdmin(req, async admin => ({ created: await admin.createAcls({ acl: req.acls }) }), emit),
  describe: (req, emit) => withAdmin(req, admin => admin.describeAcls(noNulls(req.filter)), emit),
  delete: (req, emit) => withAdmin(req, admin => admin.deleteAcls({ filters: req.filters.map(noNulls) }), emit)
})
