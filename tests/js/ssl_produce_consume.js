#!/usr/bin/env node
// kafkajs over TLS, driven by tests/integration/test_ssl.py.
//
//   node ssl_produce_consume.js <host:port> <topic> <count> <ca.pem> [<client.crt> <client.key>]
//
// Connects with ssl: {ca, cert, key} (server verified, and mutual TLS when a client certificate is
// given), creates <topic>, produces <count> records "v0".."v<count-1>", reads them back with a consumer
// group from the beginning, and prints one JSON line: {"ok": true, "result": {"values": [...]}} or
// {"ok": false, "error": "...", "type": "<kafkajs error name>"}.
'use strict'

const fs = require('fs')
const { Kafka, logLevel } = require('kafkajs')

async function main([broker, topic, count, ca, cert, key]) {
  const ssl = { ca: [fs.readFileSync(ca, 'utf8')] }
  if (cert) {
    ssl.cert = fs.readFileSync(cert, 'utf8')
    ssl.key = fs.readFileSync(key, 'utf8')
  }
  const kafka = new Kafka({
    clientId: 'kafkalite-kafkajs-ssl', brokers: [broker], ssl, logLevel: logLevel.NOTHING,
    connectionTimeout: 5000, requestTimeout: 15000, retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 500 },
  })
  const admin = kafka.admin()
  await admin.connect()
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true })
  } finally {
    await admin.disconnect()
  }
  const producer = kafka.producer({ allowAutoTopicCreation: false })
  await producer.connect()
  const n = Number(count)
  try {
    await producer.send({ topic, messages: Array.from({ length: n }, (_, i) => ({ value: `v${i}` })) })
  } finally {
    await producer.disconnect()
  }
  const consumer = kafka.consumer({ groupId: `${topic}-group`, sessionTimeout: 10000, heartbeatInterval: 1000 })
  const values = []
  await consumer.connect()
  try {
    await consumer.subscribe({ topic, fromBeginning: true })
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${values.length} of ${n} records after 60 s`)), 60000)
      consumer.run({
        eachMessage: async ({ message }) => {
          values.push(message.value.toString())
          if (values.length >= n) {
            clearTimeout(timer)
            resolve()
          }
        },
      }).catch(reject)
    })
  } finally {
    await consumer.disconnect()
  }
  return { values }
}

main(process.argv.slice(2))
  .then(result => { console.log(JSON.stringify({ ok: true, result })); process.exit(0) })
  .catch(e => { console.log(JSON.stringify({ ok: false, error: String(e && e.message), type: e && e.name })); process.exit(0) })
