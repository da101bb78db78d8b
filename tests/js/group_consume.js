#!/usr/bin/env node
// A kafkajs consumer group member driven by kafkalite's Python integration tests.
//
//   node group_consume.js <host:port> <topic> <group> <count>
//
// Joins <group> (FindCoordinator, JoinGroup, SyncGroup, Heartbeat through kafkajs's own
// consumer), subscribes to <topic> from the beginning and consumes until <count> records have
// arrived; kafkajs commits the offsets it resolved, and disconnect() commits the rest and sends
// LeaveGroup. Prints one JSON line:
//   {"ok": true, "result": {"records": [{partition, offset, key, value}], "assigned": [partitions]}}
// keys and values as UTF-8 text, "assigned" the partitions of <topic> the last GROUP_JOIN gave it.
// On failure: {"ok": false, "error": {name, type, message}}. Gives up after 60 seconds.
'use strict'

const { Kafka, logLevel } = require('kafkajs')

async function consume(broker, topic, groupId, wanted) {
  const kafka = new Kafka({
    clientId: 'kafkalite-kafkajs-group-member',
    brokers: [broker],
    logLevel: logLevel.ERROR,
    connectionTimeout: 3000,
    requestTimeout: 15000,
    retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 1000 },
  })
  const consumer = kafka.consumer({ groupId, sessionTimeout: 10000, heartbeatInterval: 500, maxWaitTimeInMs: 200 })
  let assigned = []
  consumer.on(consumer.events.GROUP_JOIN, e => {
    assigned = (e.payload.memberAssignment && e.payload.memberAssignment[topic]) || []
  })
  const records = []
  let done
  const finished = new Promise(resolve => { done = resolve })
  await consumer.connect()
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true })
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        records.push({
          partition,
          offset: Number(message.offset),
          key: message.key == null ? null : message.key.toString(),
          value: message.value == null ? null : message.value.toString(),
        })
        if (records.length >= wanted) done()
      },
    })
    let timer
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out with ${records.length} of ${wanted} records`)), 60000)
    })
    try {
      await Promise.race([finished, timeout])
    } finally {
      clearTimeout(timer)
    }
  } finally {
    await consumer.disconnect()
  }
  return { records, assigned }
}

async function main() {
  const [broker, topic, group, count] = process.argv.slice(2)
  let out
  try {
    out = { ok: true, result: await consume(broker, topic, group, Number(count)) }
  } catch (e) {
    out = { ok: false, error: { name: e.name, type: e.type || null, message: e.message } }
  }
  process.stdout.write(JSON.stringify(out) + '\n')
}

main().catch(e => {
  process.stderr.write(`group_consume.js: ${e && e.stack ? e.stack : e}\n`)
  process.exit(1)
})
