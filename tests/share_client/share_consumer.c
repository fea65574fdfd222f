// share_consumer: librdkafka 2.15.1's share consumer (KIP-932) as a process the tests drive.
//
// Joins a share group, prints every record it receives as one JSON line on stdout and every
// event (errors, acknowledgement results, librdkafka's log, the stop) as one JSON line on stderr,
// acknowledges the records as the options say, and stops on --max-records, --idle-ms or
// SIGINT/SIGTERM. Usage: share_consumer --help. README.md describes the output.
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rdkafka.h"

static const char kUsage[] =
    "usage: share_consumer --bootstrap HOST:PORT --group ID --topic NAME [--topic NAME]...\n"
    "         [-X key=value]... [--max-records N] [--idle-ms N] [--commit sync|async|none]\n"
    "         [--release-offsets LIST] [--reject-offsets LIST] [--release-first-delivery]\n"
    "         [--no-ack-exit]\n"
    "  -X key=value             librdkafka configuration, e.g. "
    "share.acknowledgement.mode=explicit\n"
    "  --max-records N          stop once N records were received (the last batch is handled "
    "whole)\n"
    "  --idle-ms N              stop after N ms without a record\n"
    "  --commit MODE            after each batch: commit_sync, commit_async, or none (the "
    "default:\n"
    "                           acknowledgements go with the next poll and the close)\n"
    "  --release-offsets LIST   release these records at every delivery; LIST is comma-separated\n"
    "                           OFFSET or PARTITION:OFFSET\n"
    "  --reject-offsets LIST    reject these records\n"
    "  --release-first-delivery release every record whose delivery count is 1\n"
    "  --no-ack-exit            at the stop, _exit(0) without acknowledging the last batch or\n"
    "                           closing (a crash)\n"
    "  --quiet                  no record lines (benchmarks); the stopped event counts them\n"
    "The three ack options need (and select) share.acknowledgement.mode=explicit; other records "
    "are\n"
    "accepted. Records go to stdout, events to stderr, one JSON object a line.\n";

enum { kMaxConfigs = 64, kPollMs = 100, kCommitSyncMs = 10000 };

// A record named by offset; partition -1 matches every partition.
typedef struct {
  int32_t partition;
  int64_t offset;
} RecordRef;

typedef struct {
  RecordRef* items;
  size_t count;
} RecordRefs;

typedef enum { kCommitNone, kCommitSync, kCommitAsync } CommitMode;

typedef struct {
  const char* bootstrap;
  const char* group;
  rd_kafka_topic_partition_list_t* topics;
  const char* configs[kMaxConfigs][2];
  int config_count;
  const char* ack_mode;  // the -X share.acknowledgement.mode value, if any
  long max_records;      // 0: no limit
  long idle_ms;          // 0: no limit
  CommitMode commit;
  RecordRefs release, reject;
  int release_first_delivery;
  int no_ack_exit;
  int explicit_acks;
} Options;

static volatile sig_atomic_t g_stop_signal = 0;
static int g_quiet = 0;  // --quiet: print_record prints nothing
static long g_errors = 0;  // every error event, reported in the final "stopped" event

static void on_signal(int sig) { g_stop_signal = sig; }

// Writes bytes as a JSON string: printable ASCII as is, every other byte as \u00XX (so a binary
// value survives the round trip as Latin-1 text). NULL is null.
static void json_bytes(FILE* out, const void* data, size_t len) {
  if (data == NULL) {
    fputs("null", out);
    return;
  }
  const unsigned char* p = data;
  fputc('"', out);
  for (size_t i = 0; i < len; i++) {
    if (p[i] == '"' || p[i] == '\\') {
      fprintf(out, "\\%c", p[i]);
    } else if (p[i] < 0x20 || p[i] >= 0x7f) {
      fprintf(out, "\\u%04x", p[i]);
    } else {
      fputc(p[i], out);
    }
  }
  fputc('"', out);
}

static void json_str(FILE* out, const char* s) { json_bytes(out, s, s ? strlen(s) : 0); }

// One error event on stderr; `what` names the call that failed.
static void emit_error(const char* what, rd_kafka_resp_err_t err, const char* message) {
  g_errors++;
  fputs("{\"event\":\"error\",\"what\":", stderr);
  json_str(stderr, what);
  fprintf(stderr, ",\"code\":%d,\"name\":", (int)err);
  json_str(stderr, rd_kafka_err2name(err));
  fputs(",\"message\":", stderr);
  json_str(stderr, message ? message : rd_kafka_err2str(err));
  fputs("}\n", stderr);
}

static void emit_error_object(const char* what, rd_kafka_error_t* error) {
  emit_error(what, rd_kafka_error_code(error), rd_kafka_error_string(error));
  rd_kafka_error_destroy(error);
}

static _Noreturn void usage_error(const char* fmt, ...) {
  char message[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  fputs("{\"event\":\"error\",\"what\":\"arguments\",\"message\":", stderr);
  json_str(stderr, message);
  fputs("}\n", stderr);
  exit(2);
}

// librdkafka logs from its own threads; stdio locks each call, so lines never interleave.
static void on_log(const rd_kafka_t* rk, int level, const char* facility, const char* message) {
  (void)rk;
  fprintf(stderr, "{\"event\":\"log\",\"level\":%d,\"facility\":", level);
  json_str(stderr, facility);
  fputs(",\"message\":", stderr);
  json_str(stderr, message);
  fputs("}\n", stderr);
}

static void on_client_error(rd_kafka_t* rk, int err, const char* reason, void* opaque) {
  (void)rk, (void)opaque;
  emit_error("client", (rd_kafka_resp_err_t)err, reason);
}

// The outcome of each partition's acknowledgements, as the broker answered them.
static void on_ack_commit(rd_kafka_share_t* rkshare, rd_kafka_share_partition_offsets_list_t* list,
                          rd_kafka_resp_err_t err, void* opaque) {
  (void)rkshare, (void)opaque;
  for (size_t i = 0; i < rd_kafka_share_partition_offsets_list_count(list); i++) {
    const rd_kafka_share_partition_offsets_t* entry =
        rd_kafka_share_partition_offsets_list_get(list, i);
    const rd_kafka_topic_partition_t* tp = rd_kafka_share_partition_offsets_partition(entry);
    rd_kafka_resp_err_t part_err = tp->err ? tp->err : err;
    fputs("{\"event\":\"ack_commit\",\"topic\":", stderr);
    json_str(stderr, tp->topic);
    fprintf(stderr, ",\"partition\":%" PRId32 ",\"offsets\":[", tp->partition);
    const int64_t* offsets = rd_kafka_share_partition_offsets_offsets(entry);
    size_t n = rd_kafka_share_partition_offsets_offsets_cnt(entry);
    for (size_t j = 0; j < n; j++) fprintf(stderr, "%s%" PRId64, j ? "," : "", offsets[j]);
    fprintf(stderr, "],\"code\":%d}\n", (int)part_err);
    if (part_err) emit_error("acknowledgement", part_err, NULL);
  }
}

static long parse_count(const char* opt, const char* text) {
  char* end;
  long v = strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || v < 0) usage_error("%s wants a count, not '%s'", opt, text);
  return v;
}

// "5,0:7" -> {(-1,5), (0,7)}.
static void parse_refs(const char* opt, const char* text, RecordRefs* refs) {
  char* copy = strdup(text);
  for (char* tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
    RecordRef ref = {-1, 0};
    char* end;
    char* colon = strchr(tok, ':');
    if (colon) {
      ref.partition = (int32_t)strtol(tok, &end, 10);
      if (end != colon || ref.partition < 0) usage_error("%s: bad partition in '%s'", opt, tok);
      tok = colon + 1;
    }
    ref.offset = strtoll(tok, &end, 10);
    if (*tok == '\0' || *end != '\0' || ref.offset < 0)
      usage_error("%s: bad offset in '%s'", opt, tok);
    refs->items = realloc(refs->items, (refs->count + 1) * sizeof *refs->items);
    refs->items[refs->count++] = ref;
  }
  free(copy);
}

static int refs_match(const RecordRefs* refs, int32_t partition, int64_t offset) {
  for (size_t i = 0; i < refs->count; i++) {
    const RecordRef* r = &refs->items[i];
    if (r->offset == offset && (r->partition < 0 || r->partition == partition)) return 1;
  }
  return 0;
}

static void parse_args(int argc, char** argv, Options* o) {
  enum { kMax = 256, kIdle, kCommit, kRelease, kReject, kReleaseFirst, kNoAckExit, kQuiet };
  static const struct option longs[] = {
      {"bootstrap", required_argument, NULL, 'b'},
      {"group", required_argument, NULL, 'g'},
      {"topic", required_argument, NULL, 't'},
      {"max-records", required_argument, NULL, kMax},
      {"idle-ms", required_argument, NULL, kIdle},
      {"commit", required_argument, NULL, kCommit},
      {"release-offsets", required_argument, NULL, kRelease},
      {"reject-offsets", required_argument, NULL, kReject},
      {"release-first-delivery", no_argument, NULL, kReleaseFirst},
      {"no-ack-exit", no_argument, NULL, kNoAckExit},
      {"quiet", no_argument, NULL, kQuiet},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  opterr = 0;  // our own message, as JSON
  int c;
  while ((c = getopt_long(argc, argv, ":b:g:t:X:h", longs, NULL)) != -1) {
    switch (c) {
      case 'b':
        o->bootstrap = optarg;
        break;
      case 'g':
        o->group = optarg;
        break;
      case 't':
        rd_kafka_topic_partition_list_add(o->topics, optarg, RD_KAFKA_PARTITION_UA);
        break;
      case 'X': {
        char* eq = strchr(optarg, '=');
        if (!eq || eq == optarg) usage_error("-X wants key=value, not '%s'", optarg);
        if (o->config_count == kMaxConfigs) usage_error("more than %d -X options", kMaxConfigs);
        *eq = '\0';
        o->configs[o->config_count][0] = optarg;
        o->configs[o->config_count++][1] = eq + 1;
        if (strcmp(optarg, "share.acknowledgement.mode") == 0) o->ack_mode = eq + 1;
        break;
      }
      case kMax:
        o->max_records = parse_count("--max-records", optarg);
        break;
      case kIdle:
        o->idle_ms = parse_count("--idle-ms", optarg);
        break;
      case kCommit:
        if (strcmp(optarg, "sync") == 0) o->commit = kCommitSync;
        else if (strcmp(optarg, "async") == 0) o->commit = kCommitAsync;
        else if (strcmp(optarg, "none") == 0) o->commit = kCommitNone;
        else usage_error("--commit wants sync, async or none, not '%s'", optarg);
        break;
      case kRelease:
        parse_refs("--release-offsets", optarg, &o->release);
        break;
      case kReject:
        parse_refs("--reject-offsets", optarg, &o->reject);
        break;
      case kReleaseFirst:
        o->release_first_delivery = 1;
        break;
      case kNoAckExit:
        o->no_ack_exit = 1;
        break;
      case kQuiet:
        g_quiet = 1;
        break;
      case 'h':
        fputs(kUsage, stdout);
        exit(0);
      case ':':
        usage_error("%s wants a value", argv[optind - 1]);
      default:
        usage_error("unknown option %s (see --help)", argv[optind - 1]);
    }
  }
  if (optind < argc) usage_error("unexpected argument '%s'", argv[optind]);
  if (!o->bootstrap || !o->group || o->topics->cnt == 0)
    usage_error("--bootstrap, --group and at least one --topic are required");
  int policy = o->release.count || o->reject.count || o->release_first_delivery;
  if (policy && o->ack_mode && strcmp(o->ack_mode, "explicit") != 0)
    usage_error("the ack options need share.acknowledgement.mode=explicit, not %s", o->ack_mode);
  o->explicit_acks = policy || (o->ack_mode && strcmp(o->ack_mode, "explicit") == 0);
}

static rd_kafka_share_t* create_consumer(const Options* o) {
  char errstr[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set_log_cb(conf, on_log);
  rd_kafka_conf_set_error_cb(conf, on_client_error);
  const char* base[][2] = {{"bootstrap.servers", o->bootstrap},
                           {"group.id", o->group},
                           {"share.acknowledgement.mode", o->explicit_acks ? "explicit" : NULL}};
  for (size_t i = 0; i < sizeof base / sizeof base[0] + (size_t)o->config_count; i++) {
    const char* const* kv = i < 3 ? base[i] : o->configs[i - 3];  // -X comes last, so it wins
    if (kv[1] && rd_kafka_conf_set(conf, kv[0], kv[1], errstr, sizeof errstr) != RD_KAFKA_CONF_OK)
      usage_error("%s=%s: %s", kv[0], kv[1], errstr);
  }
  rd_kafka_share_t* rkshare = rd_kafka_share_consumer_new(conf, errstr, sizeof errstr);
  if (!rkshare) {
    rd_kafka_conf_destroy(conf);  // still ours on failure
    emit_error("rd_kafka_share_consumer_new", RD_KAFKA_RESP_ERR__INVALID_ARG, errstr);
    exit(1);
  }
  return rkshare;
}

static const char* ack_name(rd_kafka_share_AcknowledgeType_t t) {
  return t == RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_REJECT    ? "reject"
         : t == RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_RELEASE ? "release"
                                                        : "accept";
}

static rd_kafka_share_AcknowledgeType_t choose_ack(const Options* o, const rd_kafka_message_t* m) {
  if (refs_match(&o->reject, m->partition, m->offset))
    return RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_REJECT;
  if (refs_match(&o->release, m->partition, m->offset) ||
      (o->release_first_delivery && rd_kafka_message_delivery_count(m) == 1))
    return RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_RELEASE;
  return RD_KAFKA_SHARE_ACKNOWLEDGE_TYPE_ACCEPT;
}

static void print_record(const rd_kafka_message_t* m, long batch, const char* ack) {
  if (g_quiet) return;
  printf("{\"batch\":%ld,\"topic\":", batch);
  json_str(stdout, rd_kafka_topic_name(m->rkt));
  printf(",\"partition\":%" PRId32 ",\"offset\":%" PRId64 ",\"delivery_count\":%d,\"key\":",
         m->partition, m->offset, (int)rd_kafka_message_delivery_count(m));
  json_bytes(stdout, m->key, m->key_len);
  printf(",\"value\":");
  json_bytes(stdout, m->payload, m->len);
  printf(",\"ack\":\"%s\"}\n", ack);
}

// Prints (and in explicit mode acknowledges) one batch; returns the number of records in it.
// With ack == 0 nothing is acknowledged: the batch in hand at a --no-ack-exit stop.
static long handle_batch(rd_kafka_share_t* rkshare, const Options* o, rd_kafka_messages_t* batch,
                         long batch_no, int ack) {
  long records = 0;
  for (size_t i = 0; i < rd_kafka_messages_count(batch); i++) {
    const rd_kafka_message_t* m = rd_kafka_messages_get(batch, i);
    if (m->err) {  // librdkafka has already acknowledged a record it could not read
      emit_error("record", m->err, rd_kafka_message_errstr(m));
      continue;
    }
    records++;
    if (!ack || !o->explicit_acks) {
      print_record(m, batch_no, !ack ? "none" : "implicit");
      continue;
    }
    rd_kafka_share_AcknowledgeType_t type = choose_ack(o, m);
    print_record(m, batch_no, ack_name(type));
    rd_kafka_resp_err_t err = rd_kafka_share_acknowledge_type(rkshare, m, type);
    if (err) emit_error("rd_kafka_share_acknowledge_type", err, NULL);
  }
  return records;
}

static void commit(rd_kafka_share_t* rkshare, CommitMode mode) {
  if (mode == kCommitAsync) {
    rd_kafka_error_t* error = rd_kafka_share_commit_async(rkshare);
    if (error) emit_error_object("rd_kafka_share_commit_async", error);
  } else if (mode == kCommitSync) {
    rd_kafka_topic_partition_list_t* parts = NULL;
    rd_kafka_error_t* error = rd_kafka_share_commit_sync(rkshare, kCommitSyncMs, &parts);
    if (error) emit_error_object("rd_kafka_share_commit_sync", error);
    for (int i = 0; parts && i < parts->cnt; i++)
      if (parts->elems[i].err) emit_error("rd_kafka_share_commit_sync", parts->elems[i].err, NULL);
    if (parts) rd_kafka_topic_partition_list_destroy(parts);
  }
}

static long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

// Polls until a stop condition; returns its name, or NULL after a fatal error.
static const char* consume(rd_kafka_share_t* rkshare, const Options* o, long* received) {
  long last_record = now_ms(), batches = 0;
  for (;;) {
    if (g_stop_signal) return "signal";
    if (o->idle_ms && now_ms() - last_record >= o->idle_ms) return "idle";
    rd_kafka_messages_t* batch = NULL;
    rd_kafka_error_t* error = rd_kafka_share_poll(rkshare, kPollMs, &batch);
    if (error) {
      // __STATE is this program misusing the API (a record left unacknowledged, say): every
      // later poll would fail the same way at once.
      int fatal = rd_kafka_error_is_fatal(error) ||
                  rd_kafka_error_code(error) == RD_KAFKA_RESP_ERR__STATE;
      emit_error_object("rd_kafka_share_poll", error);
      if (fatal) return NULL;
      continue;
    }
    if (!batch) continue;
    last_record = now_ms();
    // Whether this batch ends the run decides whether it is acknowledged.
    long in_batch = (long)rd_kafka_messages_count(batch);
    int last = o->max_records ? *received + in_batch >= o->max_records : o->no_ack_exit;
    int ack = !(last && o->no_ack_exit);
    *received += handle_batch(rkshare, o, batch, ++batches, ack);
    rd_kafka_messages_destroy(batch);
    fflush(stdout);
    if (!ack) {
      fputs("{\"event\":\"exit_without_ack\"}\n", stderr);
      _exit(0);  // no acknowledgement, no close, no LeaveGroup: what a crash leaves behind
    }
    commit(rkshare, o->commit);
    if (last) return "max-records";
  }
}

int main(int argc, char** argv) {
  Options o = {0};
  o.topics = rd_kafka_topic_partition_list_new(4);
  parse_args(argc, argv, &o);
  setvbuf(stderr, NULL, _IOLBF, 0);
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);

  rd_kafka_share_t* rkshare = create_consumer(&o);
  rd_kafka_error_t* error =
      rd_kafka_share_set_acknowledgement_commit_cb(rkshare, on_ack_commit, NULL);
  if (error) emit_error_object("rd_kafka_share_set_acknowledgement_commit_cb", error);
  rd_kafka_resp_err_t err = rd_kafka_share_subscribe(rkshare, o.topics);
  if (err) {
    emit_error("rd_kafka_share_subscribe", err, NULL);
    return 1;
  }
  fprintf(stderr, "{\"event\":\"subscribed\",\"acknowledgement\":\"%s\"}\n",
          o.explicit_acks ? "explicit" : "implicit");

  long received = 0;
  const char* reason = consume(rkshare, &o, &received);
  // The close sends the acknowledgements still pending and leaves the group.
  if ((error = rd_kafka_share_consumer_close(rkshare))) emit_error_object("close", error);
  if ((error = rd_kafka_share_destroy(rkshare))) emit_error_object("destroy", error);
  fprintf(stderr, "{\"event\":\"stopped\",\"reason\":\"%s\",\"records\":%ld,\"errors\":%ld}\n",
          reason ? reason : "fatal-error", received, g_errors);
  rd_kafka_topic_partition_list_destroy(o.topics);
  free(o.release.items);
  free(o.reject.items);
  return reason ? 0 : 1;
}
