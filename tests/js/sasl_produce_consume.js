#!/usr/bin/env node
// kafkajs over SASL_PLAINTEXT, driven by kafkalite's Python integration tests (tests/integration/test_sasl.py).
//
//   node sasl_produce_consume.js <host:port> <mechanism: plain|scram-sha-256|scram-sha-512> <user> <password>
//        <topic> <count> [<ca.pem>]
//
// With <ca.pem> the connection is SASL_SSL (TLS, the broker verified against that CA).
// Produces <count> records "kafkajs-<i>" to partition 0 of <topic>, then reads them back with a consumer
// group (fromBeginning). Prints one JSON line: {"ok": true, "result": {"values": [...]}} or, on failure,
// {"ok": false, "error": {name, type, message}} -- a wrong password gives kafkajs's own
// KafkaJSSASLAuthenticationError. Gives up after 60 seconds.
'use strict'

const fs = require('fs')
const { Kafka, logLevel } = require('kafkajs')

async function run(broker, mechanism, username, password, topic, wanted, ca) {
  const kafka = new Kafka({
    clientId: 'kafkalite-kafkajs-sasl',
    brokers: [broker],
    sasl: { mechanism, username, password },
    ssl: ca ? { ca: [fs.readFileSync(ca, 'utf8')] } : false,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 3000,
    requestTimeout: 15000,
    retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 1000 },
  })
  const producer = kafka.producer({ allowAutoTopicCreation: true })
  await producer.connect()
  try {
    const messages = Array.from({ length: wanted }, (_, i) => ({ partition: 0, value: `kafkajs-${i}` }))
    await producer.send({ topic, messages, acks: -1 })
  } finally {
    await producer.disconnect()
  }
  const consumer = kafka.consumer({ groupId: `${topic}-group`, sessionTimeout: 10000, heartbeatInterval: 500,
                                    maxWaitTimeInMs: 200 })
  const values = []
  let done
  const finished = new Promise(resolve => { done = resolve })
  await consumer.connect()
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true })
    await consumer.run({
      eachMessage: async ({ message }) => {
        values.push(message.value.toString())
        if (values.length >= wanted) done()
      },
    })
    let timer
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out with ${values.length} of ${wanted} records`)), 60000)
    })
    try {
      await Promise.race([finished, timeout])
    } finally {
      clearTimeout(timer)
    }
  } finally {
    await consumer.disconnect()
  }
  return { values }
}

async function main() {
  const [broker, mechanism, user, password, topic, count, ca] = process.argv.slice(2)
  let out
  try {
    out = { ok: true, result: await run(broker, mechanism, user, password, topic, Number(count), ca) }
  } catch (e) {
    out = { ok: false, error: { name: e.name, type: e.type || null, message: e.message } }
  }
  process.stdout.write(JSON.stringify(out) + '\n')
}

main().catch(e => {
  process.stderr.write(`sasl_produce_consume.js: ${e && e.stack ? e.stack : e}\n`)
  process.exit(1)
})
