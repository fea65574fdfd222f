// mock_share_cluster: librdkafka 2.15.1's mock cluster, which serves share groups, as a process:
// a broker for share_consumer that Mirra did not write.
//
//   mock_share_cluster [--brokers N] [--topic NAME] [--partitions P] [--records N]
//                      [--delivery-limit N] [--lock-ms N] [--session-timeout-ms N]
//
// Creates the topic, produces N records into it with a normal producer (record i, from 0: key
// "key-<i>", value "value-<i>", partition i % P), prints the bootstrap servers as one line on
// stdout and then reads commands from stdin, one a line, answering "ok" or "error: <why>":
//   produce <n>        produce n more records, numbered on from the last
//   members <group>    "ok <count>": the members the share group has
// It exits 0 when stdin closes (so a test that dies takes the cluster with it).
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdkafka.h"
#include "rdkafka_mock.h"

typedef struct {
  int brokers;
  const char* topic;
  int partitions;
  long records;
  int delivery_limit;  // 0: the mock's default (5)
  int lock_ms;         // 0: the mock's default (30 s)
  int session_ms;      // 0: the mock's default (45 s)
} Options;

static int fail(const char* fmt, const char* arg) {
  fprintf(stderr, "mock_share_cluster: ");
  fprintf(stderr, fmt, arg);
  fputc('\n', stderr);
  return 1;
}

static long parse_number(const char* text) {
  char* end;
  long v = strtol(text, &end, 10);
  return (*text && !*end && v >= 0) ? v : -1;
}

static int parse_args(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; i++) {
    const char* arg = argv[i];
    if (i + 1 == argc) return fail("%s: missing value (or unknown option)", arg);
    const char* value = argv[++i];
    long n = parse_number(value);
    if (strcmp(arg, "--topic") == 0) {
      o->topic = value;
      continue;
    }
    if (n < 0) return fail("not a number: %s", value);
    if (strcmp(arg, "--brokers") == 0) o->brokers = (int)n;
    else if (strcmp(arg, "--partitions") == 0) o->partitions = (int)n;
    else if (strcmp(arg, "--records") == 0) o->records = n;
    else if (strcmp(arg, "--delivery-limit") == 0) o->delivery_limit = (int)n;
    else if (strcmp(arg, "--lock-ms") == 0) o->lock_ms = (int)n;
    else if (strcmp(arg, "--session-timeout-ms") == 0) o->session_ms = (int)n;
    else return fail("unknown option %s", arg);
  }
  if (o->brokers < 1 || o->partitions < 1) return fail("%s", "brokers and partitions must be >= 1");
  return 0;
}

static void on_delivery(rd_kafka_t* rk, const rd_kafka_message_t* m, void* opaque) {
  (void)rk, (void)opaque;
  if (m->err) {
    fprintf(stderr, "mock_share_cluster: delivery failed: %s\n", rd_kafka_err2str(m->err));
    exit(1);  // a test without its records would fail later and less clearly
  }
}

// Produces records first..first+count-1 and waits until all are acknowledged.
static int produce(rd_kafka_t* producer, const Options* o, long first, long count) {
  for (long i = first; i < first + count; i++) {
    char key[32], value[32];
    snprintf(key, sizeof key, "key-%ld", i);
    snprintf(value, sizeof value, "value-%ld", i);
    rd_kafka_resp_err_t err = rd_kafka_producev(
        producer, RD_KAFKA_V_TOPIC(o->topic), RD_KAFKA_V_PARTITION((int32_t)(i % o->partitions)),
        RD_KAFKA_V_KEY(key, strlen(key)), RD_KAFKA_V_VALUE(value, strlen(value)),
        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
    if (err) return fail("produce: %s", rd_kafka_err2str(err));
  }
  rd_kafka_resp_err_t err = rd_kafka_flush(producer, 30000);
  return err ? fail("flush: %s", rd_kafka_err2str(err)) : 0;
}

// The members the mock's share group has now (0 for a group it does not know).
static size_t member_count(rd_kafka_mock_cluster_t* mcluster, const char* group) {
  char** ids = NULL;
  size_t count = 0;
  if (rd_kafka_mock_sharegroup_get_member_ids(mcluster, group, &ids, &count)) return 0;
  for (size_t i = 0; i < count; i++) rd_kafka_mem_free(NULL, ids[i]);
  rd_kafka_mem_free(NULL, ids);  // allocated by librdkafka, as each id
  return count;
}

static rd_kafka_t* new_handle(const char* bootstrap) {
  char errstr[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof errstr);  // quiet: warnings are noise
  if (bootstrap) {
    rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, errstr, sizeof errstr);
    rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
  }
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
  if (!rk) {
    fail("rd_kafka_new: %s", errstr);
    exit(1);
  }
  return rk;
}

int main(int argc, char** argv) {
  Options o = {.brokers = 1, .topic = "share-topic", .partitions = 1};
  if (parse_args(argc, argv, &o)) return 2;

  // The mock lives in a handle of its own; the producer is an ordinary client of it.
  rd_kafka_t* host = new_handle(NULL);
  rd_kafka_mock_cluster_t* mcluster = rd_kafka_mock_cluster_new(host, o.brokers);
  if (!mcluster) return fail("%s", "rd_kafka_mock_cluster_new failed");
  // Tests produce before the consumer joins: start share-partitions at the earliest offset.
  rd_kafka_mock_sharegroup_set_auto_offset_reset(mcluster, 1);
  // The assignment reaches a member with a heartbeat answer: 5 s by default, slow for tests.
  rd_kafka_mock_sharegroup_set_heartbeat_interval(mcluster, 500);
  if (o.delivery_limit)
    rd_kafka_mock_sharegroup_set_max_delivery_attempts(mcluster, o.delivery_limit);
  if (o.lock_ms) rd_kafka_mock_sharegroup_set_record_lock_duration(mcluster, o.lock_ms);
  if (o.session_ms) rd_kafka_mock_sharegroup_set_session_timeout(mcluster, o.session_ms);
  rd_kafka_resp_err_t err = rd_kafka_mock_topic_create(mcluster, o.topic, o.partitions, 1);
  if (err) return fail("topic: %s", rd_kafka_err2str(err));

  const char* bootstrap = rd_kafka_mock_cluster_bootstraps(mcluster);
  rd_kafka_t* producer = new_handle(bootstrap);
  long produced = 0;
  if (produce(producer, &o, 0, o.records)) return 1;
  produced = o.records;
  printf("%s\n", bootstrap);
  fflush(stdout);

  char line[256], group[128];
  while (fgets(line, sizeof line, stdin)) {
    long n = -1;
    char extra;
    if (sscanf(line, "produce %ld %c", &n, &extra) == 1 && n >= 0) {
      int failed = produce(producer, &o, produced, n);
      produced += failed ? 0 : n;
      printf(failed ? "error: produce failed\n" : "ok\n");
    } else if (sscanf(line, "members %127s %c", group, &extra) == 1) {
      printf("ok %zu\n", member_count(mcluster, group));
    } else if (strspn(line, " \t\r\n") != strlen(line)) {
      line[strcspn(line, "\r\n")] = '\0';
      printf("error: unknown command: %s\n", line);
    }
    fflush(stdout);
  }
  rd_kafka_destroy(producer);
  rd_kafka_mock_cluster_destroy(mcluster);
  rd_kafka_destroy(host);
  return 0;
}
