// No Kafka counterpart: a small sarama program that tests/integration/test_sarama.py runs
// against a kafkalite broker. It is built from Debian's golang-github-shopify-sarama-dev
// (sarama 1.22.1) in GOPATH mode, without the Go module proxy.
//
// Subcommands (each prints one JSON object per record on stdout, logs on stderr):
//
//	produce  -n N [-first I]        N keyed records "key-I".."key-(I+N-1)" with a SyncProducer, acks=all
//	         [-compression C]       (none, gzip, snappy, lz4, zstd) [-idempotent]
//	watermarks                      each partition's oldest and newest offset (Client.GetOffset: ListOffsets)
//	                                and the topics the client's full metadata refresh saw (Client.Topics)
//	admin    [-group G -offsets-of T] ClusterAdmin on -topic: create (3 partitions, retention.ms), describe, list
//	                                (its configs), add a partition, alter and describe a config, delete records
//	                                below offset 2 of partition 0, list and describe groups and G's offsets,
//	                                delete the topic; one JSON line per step
//	consume                         every partition from the oldest offset to the high watermark seen at start
//	group    -group G -max M        a ConsumerGroup member that marks M records (MarkMessage), then leaves;
//	                                its offset manager commits what was marked when the session ends (and
//	                                whenever a rebalance ends a session); stderr says "claims" per session
//	offsets  -group G -max M        the same with the standalone OffsetManager (PartitionOffsetManager.MarkOffset),
//	                                which works with sarama's default Version, where ConsumerGroup does not
//
// Common flags: -bootstrap host:port[,host:port] -topic T -version V ("default" keeps sarama's
// own default, V0_8_2_0; otherwise a version sarama.ParseKafkaVersion knows, e.g. 2.1.0)
// -retention D (group/offsets: Consumer.Offsets.Retention; 0 makes sarama send OffsetCommit v1,
// anything else v2) -timeout D (the whole run) -debug (sarama's own log on stderr)
// -sasl-user U -sasl-password P (SASL/PLAIN on a SASL_PLAINTEXT listener).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/Shopify/sarama"
)

type record struct {
	Key       string `json:"key"`
	Value     string `json:"value,omitempty"`
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
}

var (
	bootstrap = flag.String("bootstrap", "127.0.0.1:9092", "comma-separated broker list")
	topic     = flag.String("topic", "", "topic")
	version   = flag.String("version", "default", "sarama Config.Version, or \"default\"")
	count     = flag.Int("n", 10, "produce: records to write")
	first     = flag.Int("first", 0, "produce: index of the first key")
	offsetsOf = flag.String("offsets-of", "", "admin: the topic whose committed offsets -group lists")
	idempot   = flag.Bool("idempotent", false, "produce: Producer.Idempotent (InitProducerId, sequence numbers)")
	saslUser  = flag.String("sasl-user", "", "SASL/PLAIN user (empty: no SASL)")
	saslPass  = flag.String("sasl-password", "", "SASL/PLAIN password")
	codec     = flag.String("compression", "none", "produce: none, gzip, snappy, lz4 or zstd")
	group     = flag.String("group", "", "group/offsets: group id")
	max       = flag.Int("max", 0, "group/offsets: records to mark before leaving")
	retention = flag.Duration("retention", 0, "group/offsets: Consumer.Offsets.Retention")
	timeout   = flag.Duration("timeout", 60*time.Second, "give up after this long")
	debug     = flag.Bool("debug", false, "sarama's log on stderr")
)

var out = json.NewEncoder(os.Stdout)
var outLock sync.Mutex

func emit(r record) {
	outLock.Lock()
	defer outLock.Unlock()
	if err := out.Encode(r); err != nil {
		log.Fatalf("stdout: %v", err)
	}
}

func config() *sarama.Config {
	c := sarama.NewConfig()
	c.ClientID = "sarama-check"
	if *version != "default" {
		v, err := sarama.ParseKafkaVersion(*version)
		if err != nil {
			log.Fatalf("-version: %v", err)
		}
		c.Version = v
	}
	c.Producer.RequiredAcks = sarama.WaitForAll
	c.Producer.Return.Successes = true
	c.Producer.Partitioner = sarama.NewHashPartitioner
	codecs := map[string]sarama.CompressionCodec{"none": sarama.CompressionNone, "gzip": sarama.CompressionGZIP,
		"snappy": sarama.CompressionSnappy, "lz4": sarama.CompressionLZ4, "zstd": sarama.CompressionZSTD}
	compression, ok := codecs[*codec]
	if !ok {
		log.Fatalf("-compression: %q is none of none, gzip, snappy, lz4, zstd", *codec)
	}
	c.Producer.Compression = compression
	if *saslUser != "" { // SaslHandshake v1 + SaslAuthenticate from Version 1.0, else v0 and raw tokens
		c.Net.SASL.Enable = true
		c.Net.SASL.Mechanism = sarama.SASLTypePlaintext
		c.Net.SASL.User = *saslUser
		c.Net.SASL.Password = *saslPass
	}
	if *idempot {
		c.Producer.Idempotent = true
		c.Net.MaxOpenRequests = 1
	}
	c.Consumer.Return.Errors = true
	c.Consumer.Offsets.Initial = sarama.OffsetOldest
	c.Consumer.Offsets.Retention = *retention
	c.Consumer.Offsets.CommitInterval = 200 * time.Millisecond
	c.Consumer.Group.Heartbeat.Interval = 300 * time.Millisecond // notice a rebalance soon (default 3s)
	c.Metadata.Retry.Backoff = 100 * time.Millisecond
	c.Metadata.Retry.Max = 20
	return c
}

func brokers() []string { return strings.Split(*bootstrap, ",") }

func produce() {
	p, err := sarama.NewSyncProducer(brokers(), config())
	if err != nil {
		log.Fatalf("NewSyncProducer: %v", err)
	}
	defer p.Close()
	for i := *first; i < *first+*count; i++ {
		key := fmt.Sprintf("key-%d", i)
		value := fmt.Sprintf("value-%d", i)
		partition, offset, err := p.SendMessage(&sarama.ProducerMessage{
			Topic: *topic, Key: sarama.StringEncoder(key), Value: sarama.StringEncoder(value)})
		if err != nil {
			log.Fatalf("SendMessage %s: %v", key, err)
		}
		emit(record{Key: key, Partition: partition, Offset: offset})
	}
}

// Every partition from OffsetOldest up to the high watermark ListOffsets gave at the start.
func consume() {
	client, err := sarama.NewClient(brokers(), config())
	if err != nil {
		log.Fatalf("NewClient: %v", err)
	}
	defer client.Close()
	consumer, err := sarama.NewConsumerFromClient(client)
	if err != nil {
		log.Fatalf("NewConsumer: %v", err)
	}
	defer consumer.Close()
	partitions, err := client.Partitions(*topic)
	if err != nil {
		log.Fatalf("Partitions: %v", err)
	}
	for _, partition := range partitions {
		end, err := client.GetOffset(*topic, partition, sarama.OffsetNewest)
		if err != nil {
			log.Fatalf("GetOffset %d: %v", partition, err)
		}
		readPartition(consumer, partition, sarama.OffsetOldest, end, -1, nil)
	}
}

// Reads one partition from `from` until offset `end` or until `limit` records (-1: no limit);
// mark, when not nil, gets each record's next offset.
func readPartition(consumer sarama.Consumer, partition int32, from, end int64, limit int,
	mark func(int64)) int {
	if end == 0 || limit == 0 {
		return 0
	}
	pc, err := consumer.ConsumePartition(*topic, partition, from)
	if err != nil {
		log.Fatalf("ConsumePartition %d at %d: %v", partition, from, err)
	}
	defer pc.Close()
	n := 0
	deadline := time.After(*timeout)
	for {
		select {
		case msg := <-pc.Messages():
			emit(record{Key: string(msg.Key), Value: string(msg.Value), Partition: msg.Partition, Offset: msg.Offset})
			n++
			if mark != nil {
				mark(msg.Offset + 1)
			}
			if msg.Offset+1 >= end || n == limit {
				return n
			}
		case err := <-pc.Errors():
			log.Fatalf("partition %d: %v", partition, err)
		case <-deadline:
			log.Fatalf("partition %d: no record for %v (high watermark %d)", partition, *timeout, end)
		}
	}
}

// The standalone offset manager: resume each partition at NextOffset, mark what was read, commit on Close.
func offsets() {
	client, err := sarama.NewClient(brokers(), config())
	if err != nil {
		log.Fatalf("NewClient: %v", err)
	}
	defer client.Close()
	om, err := sarama.NewOffsetManagerFromClient(*group, client)
	if err != nil {
		log.Fatalf("NewOffsetManager: %v", err)
	}
	consumer, err := sarama.NewConsumerFromClient(client)
	if err != nil {
		log.Fatalf("NewConsumer: %v", err)
	}
	partitions, err := client.Partitions(*topic)
	if err != nil {
		log.Fatalf("Partitions: %v", err)
	}
	left := *max
	var failures sync.WaitGroup
	failed := false
	for _, partition := range partitions {
		pom, err := om.ManagePartition(*topic, partition)
		if err != nil {
			log.Fatalf("ManagePartition %d: %v", partition, err)
		}
		failures.Add(1)
		go func() { // a failed commit or offset fetch arrives here; the channel closes when the pom is released
			defer failures.Done()
			for e := range pom.Errors() {
				log.Printf("offset manager: %v", e)
				failed = true
			}
		}()
		next, _ := pom.NextOffset()
		end, err := client.GetOffset(*topic, partition, sarama.OffsetNewest)
		if err != nil {
			log.Fatalf("GetOffset %d: %v", partition, err)
		}
		if next < end && left > 0 {
			left -= readPartition(consumer, partition, next, end, left,
				func(o int64) { pom.MarkOffset(o, "sarama-check") })
		}
		pom.AsyncClose()
	}
	consumer.Close()
	if err := om.Close(); err != nil {
		log.Fatalf("OffsetManager.Close: %v", err)
	}
	failures.Wait()
	if failed {
		log.Fatalf("the offset manager reported an error")
	}
}

type watermark struct {
	Partition int32    `json:"partition"`
	Oldest    int64    `json:"oldest"`
	Newest    int64    `json:"newest"`
	Topics    []string `json:"topics"`
}

// Each partition's watermarks; with the default Version these are Metadata v0 (the client's first,
// "all topics" refresh is an empty list) and ListOffsets v0.
func watermarks() {
	client, err := sarama.NewClient(brokers(), config())
	if err != nil {
		log.Fatalf("NewClient: %v", err)
	}
	defer client.Close()
	topics, err := client.Topics()
	if err != nil {
		log.Fatalf("Topics: %v", err)
	}
	partitions, err := client.Partitions(*topic)
	if err != nil {
		log.Fatalf("Partitions: %v", err)
	}
	for _, partition := range partitions {
		oldest, err := client.GetOffset(*topic, partition, sarama.OffsetOldest)
		if err != nil {
			log.Fatalf("GetOffset oldest %d: %v", partition, err)
		}
		newest, err := client.GetOffset(*topic, partition, sarama.OffsetNewest)
		if err != nil {
			log.Fatalf("GetOffset newest %d: %v", partition, err)
		}
		outLock.Lock()
		_ = out.Encode(watermark{Partition: partition, Oldest: oldest, Newest: newest, Topics: topics})
		outLock.Unlock()
	}
}

func step(name string, fields map[string]interface{}) {
	fields["step"] = name
	outLock.Lock()
	defer outLock.Unlock()
	if err := out.Encode(fields); err != nil {
		log.Fatalf("stdout: %v", err)
	}
}

func must(what string, err error) {
	if err != nil {
		log.Fatalf("%s: %v", what, err)
	}
}

// The ClusterAdmin calls a sarama application makes, each answer reduced to what the test checks.
func admin() {
	conf := config()
	ca, err := sarama.NewClusterAdmin(brokers(), conf)
	must("NewClusterAdmin", err)
	defer ca.Close()
	retention := "3600000"
	must("CreateTopic", ca.CreateTopic(*topic, &sarama.TopicDetail{NumPartitions: 3, ReplicationFactor: 1,
		ConfigEntries: map[string]*string{"retention.ms": &retention}}, false))
	step("created", map[string]interface{}{})

	var described []*sarama.TopicMetadata
	deadline := time.Now().Add(*timeout)
	for { // CreateTopics answers before every partition has a leader
		described, err = ca.DescribeTopics([]string{*topic})
		must("DescribeTopics", err)
		if len(described) == 1 && described[0].Err == sarama.ErrNoError && len(described[0].Partitions) == 3 {
			break
		}
		if time.Now().After(deadline) {
			log.Fatalf("DescribeTopics: %v", described[0].Err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	step("described", map[string]interface{}{"partitions": len(described[0].Partitions)})

	listed, err := ca.ListTopics()
	must("ListTopics", err)
	detail, ok := listed[*topic]
	if !ok {
		log.Fatalf("ListTopics: %s missing", *topic)
	}
	configs := map[string]string{}
	for name, value := range detail.ConfigEntries {
		configs[name] = *value
	}
	step("listed", map[string]interface{}{"partitions": detail.NumPartitions,
		"replication_factor": detail.ReplicationFactor, "configs": configs})

	must("CreatePartitions", ca.CreatePartitions(*topic, 4, nil, false))
	segment := "600000"
	must("AlterConfig", ca.AlterConfig(sarama.TopicResource, *topic,
		map[string]*string{"segment.ms": &segment, "retention.ms": &retention}, false))
	entries, err := ca.DescribeConfig(sarama.ConfigResource{Type: sarama.TopicResource, Name: *topic,
		ConfigNames: []string{"segment.ms", "cleanup.policy"}})
	must("DescribeConfig", err)
	described_configs := map[string]interface{}{}
	for _, e := range entries {
		described_configs[e.Name] = map[string]interface{}{"value": e.Value, "default": e.Default,
			"read_only": e.ReadOnly}
	}
	step("configs", map[string]interface{}{"configs": described_configs})

	// records in partition 0, then DeleteRecords below offset 2
	manual := config()
	manual.Producer.Partitioner = sarama.NewManualPartitioner
	p, err := sarama.NewSyncProducer(brokers(), manual)
	must("NewSyncProducer", err)
	for i := 0; i < 3; i++ {
		_, _, err := p.SendMessage(&sarama.ProducerMessage{Topic: *topic, Partition: 0,
			Value: sarama.StringEncoder(fmt.Sprintf("r%d", i))})
		must("SendMessage", err)
	}
	p.Close()
	must("DeleteRecords", ca.DeleteRecords(*topic, map[int32]int64{0: 2}))
	client, err := sarama.NewClient(brokers(), conf)
	must("NewClient", err)
	defer client.Close()
	oldest, err := client.GetOffset(*topic, 0, sarama.OffsetOldest)
	must("GetOffset", err)
	partitions, err := client.Partitions(*topic)
	must("Partitions", err)
	step("records", map[string]interface{}{"oldest": oldest, "partitions": len(partitions)})

	if *group != "" {
		groups, err := ca.ListConsumerGroups()
		must("ListConsumerGroups", err)
		descriptions, err := ca.DescribeConsumerGroups([]string{*group})
		must("DescribeConsumerGroups", err)
		offsets, err := ca.ListConsumerGroupOffsets(*group, map[string][]int32{*offsetsOf: {0, 1, 2}})
		must("ListConsumerGroupOffsets", err)
		committed := map[string]int64{}
		for t, blocks := range offsets.Blocks {
			for partition, block := range blocks {
				committed[fmt.Sprintf("%s/%d", t, partition)] = block.Offset
			}
		}
		step("groups", map[string]interface{}{"protocol_type": groups[*group], "state": descriptions[0].State,
			"members": len(descriptions[0].Members), "error": descriptions[0].Err.Error(), "offsets": committed})
	}

	must("DeleteTopic", ca.DeleteTopic(*topic))
	deadline = time.Now().Add(*timeout)
	for {
		listed, err = ca.ListTopics()
		must("ListTopics", err)
		if _, ok := listed[*topic]; !ok {
			break
		}
		if time.Now().After(deadline) {
			log.Fatalf("%s still listed after DeleteTopic", *topic)
		}
		time.Sleep(50 * time.Millisecond)
	}
	step("deleted", map[string]interface{}{})
}

type handler struct {
	lock   sync.Mutex
	left   int
	cancel context.CancelFunc
}

func (h *handler) Setup(s sarama.ConsumerGroupSession) error {
	log.Printf("member %s generation %d claims %v", s.MemberID(), s.GenerationID(), s.Claims())
	return nil
}

func (h *handler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (h *handler) ConsumeClaim(s sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for msg := range claim.Messages() {
		h.lock.Lock()
		if h.left > 0 {
			emit(record{Key: string(msg.Key), Value: string(msg.Value), Partition: msg.Partition, Offset: msg.Offset})
			s.MarkMessage(msg, "sarama-check")
			h.left--
			if h.left == 0 {
				h.cancel()
			}
		}
		h.lock.Unlock()
	}
	return nil
}

// A ConsumerGroup member: marks -max records, then ends its session; the session's offset manager
// commits the marks when the session is released, before Close sends LeaveGroup.
func consumeGroup() {
	cg, err := sarama.NewConsumerGroup(brokers(), *group, config())
	if err != nil {
		log.Fatalf("NewConsumerGroup: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &handler{left: *max, cancel: cancel}
	failed := make(chan error, 1)
	go func() {
		for e := range cg.Errors() {
			log.Printf("consumer group error: %v", e)
			select {
			case failed <- e:
			default:
			}
		}
	}()
	go func() {
		select {
		case <-time.After(*timeout):
			log.Printf("timed out after %v", *timeout)
			os.Exit(3)
		case <-ctx.Done():
		}
	}()
	for ctx.Err() == nil {
		if err := cg.Consume(ctx, []string{*topic}, h); err != nil {
			log.Fatalf("Consume: %v", err)
		}
	}
	if err := cg.Close(); err != nil {
		log.Fatalf("Close: %v", err)
	}
	select {
	case e := <-failed:
		log.Fatalf("the group reported an error: %v", e)
	default:
	}
}

func main() {
	log.SetFlags(log.Lmicroseconds)
	log.SetPrefix("sarama-check ")
	if len(os.Args) < 2 {
		log.Fatalf("usage: sarama_check produce|consume|group|offsets [flags]")
	}
	cmd := os.Args[1]
	if err := flag.CommandLine.Parse(os.Args[2:]); err != nil {
		os.Exit(2)
	}
	if *debug {
		sarama.Logger = log.New(os.Stderr, "[sarama] ", log.Lmicroseconds)
	}
	if *topic == "" {
		log.Fatalf("-topic is required")
	}
	switch cmd {
	case "produce":
		produce()
	case "consume":
		consume()
	case "watermarks":
		watermarks()
	case "admin":
		admin()
	case "group":
		consumeGroup()
	case "offsets":
		offsets()
	default:
		log.Fatalf("unknown subcommand %q", cmd)
	}
}
