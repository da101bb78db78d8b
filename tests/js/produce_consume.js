#!/usr/bin/env node
// kafkajs producer and partition reader driven by kafkalite's Python integration tests.
//
//   node produce_consume.js <host:port> produce <topic> <records.json> <acks> <gzip|none> <idempotent:0|1>
//   node produce_consume.js <host:port> consume <topic> <partitions, e.g. 0,1,2> <count>
//
// records.json holds [{partition, key, value, headers: {name: value}, timestamp}] with keys,
// values and header values in base64. "produce" sends them in order (batches of 500, one await
// each, so per-partition order is the file's order) and prints {"ok": true, "result": {"sent": n}}.
// "consume" joins no group: it asks the cluster for each partition's leader and sends Fetch
// requests from offset 0 (kafkajs's own broker.fetch, the call its consumer makes), until <count>
// records have arrived; it prints one JSON line with every record, base64 again.
'use strict'

const fs = require('fs')
const { Kafka, CompressionTypes, logLevel } = require('kafkajs')
const Cluster = require('kafkajs/src/cluster')
const { createLogger } = require('kafkajs/src/loggers')
const LoggerConsole = require('kafkajs/src/loggers/console')
const defaultSocketFactory = require('kafkajs/src/network/socketFactory')

const b64 = buf => (buf == null ? null : Buffer.from(buf).toString('base64'))
const unb64 = s => (s == null ? null : Buffer.from(s, 'base64'))

function client(broker) {
  return new Kafka({
    clientId: 'kafkalite-kafkajs-produce-consume',
    brokers: [broker],
    logLevel: logLevel.ERROR,
    connectionTimeout: 3000,
    requestTimeout: 15000,
    retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1000 },
  })
}

async function produce(kafka, [topic, file, acks, codec, idempotent]) {
  const records = JSON.parse(fs.readFileSync(file, 'utf8'))
  const producer = kafka.producer({ idempotent: idempotent === '1', allowAutoTopicCreation: false })
  await producer.connect()
  try {
    const compression = codec === 'gzip' ? CompressionTypes.GZIP : CompressionTypes.None
    for (let i = 0; i < records.length; i += 500) {
      const messages = records.slice(i, i + 500).map(r => ({
        partition: r.partition,
        key: unb64(r.key),
        value: unb64(r.value),
        timestamp: String(r.timestamp),
        headers: Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, unb64(v)])),
      }))
      await producer.send({ topic, messages, acks: Number(acks), compression, timeout: 15000 })
    }
  } finally {
    await producer.disconnect()
  }
  return { sent: records.length }
}

async function consume(brokerAddress, [topic, partitionList, count]) {
  const partitions = partitionList.split(',').map(Number)
  const wanted = Number(count)
  // kafkajs's consumer always joins a group; its Cluster (what the consumer fetches through)
  // does not, so the partitions are read the way an assign()-and-seek consumer reads them.
  const c = new Cluster({
    logger: createLogger({ level: logLevel.ERROR, logCreator: LoggerConsole }),
    brokers: [brokerAddress],
    socketFactory: defaultSocketFactory(),
    clientId: 'kafkalite-kafkajs-partition-reader',
    connectionTimeout: 3000,
    requestTimeout: 15000,
    retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1000 },
    isolationLevel: 0,
  })
  await c.connect()
  await c.addTargetTopic(topic)
  const next = Object.fromEntries(partitions.map(p => [p, 0]))
  const out = []
  const deadline = Date.now() + 60000
  while (out.length < wanted) {
    if (Date.now() > deadline) throw new Error(`timed out with ${out.length} of ${wanted} records`)
    const leaders = c.findLeaderForPartitions(topic, partitions)
    for (const [nodeId, parts] of Object.entries(leaders)) {
      const broker = await c.findBroker({ nodeId })
      const response = await broker.fetch({
        replicaId: -1,
        isolationLevel: 0,
        maxWaitTime: 500,
        minBytes: 1,
        maxBytes: 10485760,
        topics: [{ topic, partitions: parts.map(p => ({ partition: p, fetchOffset: String(next[p]), maxBytes: 1048576 })) }],
      })
      for (const t of response.responses) {
        for (const p of t.partitions) {
          if (p.errorCode !== 0) throw new Error(`fetch error ${p.errorCode} on ${topic}-${p.partition}`)
          for (const m of p.messages) {
            const offset = Number(m.offset)
            if (offset < next[p.partition]) continue // a batch may start before the fetch offset
            next[p.partition] = offset + 1
            out.push({
              partition: p.partition,
              offset,
              key: b64(m.key),
              value: b64(m.value),
              headers: Object.fromEntries(Object.entries(m.headers || {}).map(([k, v]) => [k, b64(v)])),
              timestamp: Number(m.timestamp),
              timestampType: m.batchContext && m.batchContext.timestampType === 1 ? 'log_append' : 'create',
            })
          }
        }
      }
    }
  }
  await c.disconnect()
  return { records: out }
}

async function main() {
  const [broker, op, ...args] = process.argv.slice(2)
  const kafka = client(broker)
  let out
  try {
    const result = op === 'produce' ? await produce(kafka, args) : await consume(broker, args)
    out = { ok: true, result }
  } catch (e) {
    out = { ok: false, error: { name: e.name, type: e.type || null, message: e.message } }
  }
  process.stdout.write(JSON.stringify(out) + '\n')
}

main().catch(e => {
  process.stderr.write(`produce_consume.js: ${e && e.stack ? e.stack : e}\n`)
  process.exit(1)
})
