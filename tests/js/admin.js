#!/usr/bin/env node
// kafkajs admin client driven by kafkalite's Python integration tests.
//
//   node admin.js <host:port> create <topic> <partitions> [replicationFactor] [--validate-only]
//   node admin.js <host:port> list
//   node admin.js <host:port> describe <topic>
//   node admin.js <host:port> delete <topic>
//   node admin.js <host:port> cluster
//
// Prints one JSON object on stdout: {"ok": true, "result": ...} or
// {"ok": false, "error": {"name", "type", "message", "types": [...]}} where
// "types" holds Kafka's error names (e.g. "TOPIC_ALREADY_EXISTS") carried by
// the error or by each error of a KafkaJSAggregateError.
'use strict'

const { Kafka, logLevel } = require('kafkajs')

function usage() {
  process.stderr.write('usage: admin.js <host:port> create|list|describe|delete|cluster [args]\n')
  process.exit(2)
}

// Kafka error names carried by e, by the errors it aggregates, and by its causes
// (KafkaJSNumberOfRetriesExceeded keeps the last retried error as its cause).
function kafkaErrorTypes(e, seen = new Set()) {
  if (!e || typeof e !== 'object' || seen.has(e)) return []
  seen.add(e)
  const types = e.type ? [e.type] : []
  for (const inner of Array.isArray(e.errors) ? e.errors : []) types.push(...kafkaErrorTypes(inner, seen))
  types.push(...kafkaErrorTypes(e.cause, seen))
  return [...new Set(types)]
}

function errorJson(e) {
  return { name: e.name, type: e.type || null, message: e.message, types: kafkaErrorTypes(e) }
}

async function run(admin, op, args) {
  switch (op) {
    case 'create': {
      const [topic, partitions, rf] = args.filter(a => !a.startsWith('--'))
      const validateOnly = args.includes('--validate-only')
      const created = await admin.createTopics({
        topics: [{
          topic,
          numPartitions: Number(partitions),
          replicationFactor: rf === undefined ? 1 : Number(rf),
        }],
        validateOnly,
        waitForLeaders: !validateOnly,
        timeout: 10000,
      })
      return { created }
    }
    case 'list':
      return { topics: (await admin.listTopics()).sort() }
    case 'describe': {
      const md = await admin.fetchTopicMetadata({ topics: [args[0]] })
      return {
        topics: md.topics.map(t => ({
          name: t.name,
          partitions: t.partitions
            .map(p => ({ partition: p.partitionId, leader: p.leader, replicas: p.replicas, isr: p.isr }))
            .sort((a, b) => a.partition - b.partition),
        })),
      }
    }
    case 'delete':
      await admin.deleteTopics({ topics: [args[0]], timeout: 10000 })
      return { deleted: args[0] }
    case 'cluster':
      return await admin.describeCluster()
    default:
      usage()
  }
}

async function main() {
  const [broker, op, ...args] = process.argv.slice(2)
  if (!broker || !op) usage()
  const kafka = new Kafka({
    clientId: 'kafkalite-kafkajs-test',
    brokers: [broker],
    logLevel: logLevel.ERROR,
    connectionTimeout: 3000,
    requestTimeout: 10000,
    retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 1000 },
  })
  const admin = kafka.admin()
  let out
  try {
    await admin.connect()
    out = { ok: true, result: await run(admin, op, args) }
  } catch (e) {
    out = { ok: false, error: errorJson(e) }
  } finally {
    await admin.disconnect().catch(() => {})
  }
  process.stdout.write(JSON.stringify(out) + '\n')
}

main().catch(e => {
  process.stderr.write(`admin.js: ${e && e.stack ? e.stack : e}\n`)
  process.exit(1)
})
