#include "cluster/shard_pool.h"

#include <functional>

namespace mirra::cluster {

struct ShardPool::Shard {
  asio::io_context io{1};
  asio::executor_work_guard<asio::io_context::executor_type> work = asio::make_work_guard(io);
  std::thread thread;
};

ShardPool::ShardPool(size_t threads) {
  if (threads == 0) threads = 1;
  for (size_t i = 0; i < threads; ++i) {
    auto shard = std::make_unique<Shard>();
    shard->thread = std::thread([s = shard.get()] { s->io.run(); });
    shards_.push_back(std::move(shard));
  }
}

ShardPool::~ShardPool() { stop(); }

asio::any_io_executor ShardPool::executor(size_t shard) const {
  return shards_.at(shard)->io.get_executor();
}

bool ShardPool::on_shard(size_t shard) const {
  return shards_.at(shard)->io.get_executor().running_in_this_thread();
}

size_t ShardPool::shard_for(const Uuid& topic_id, int32_t partition) const {
  const size_t h = std::hash<Uuid>()(topic_id) * 31 + static_cast<size_t>(partition);
  return h % shards_.size();
}

void ShardPool::stop() {
  for (auto& s : shards_) s->work.reset();  // run() returns once the queue is empty
  for (auto& s : shards_) {
    if (s->thread.joinable()) s->thread.join();
  }
}

}  // namespace mirra::cluster
