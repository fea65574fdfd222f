#include "cli/configs_quota_logic.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/text.h"

namespace mirra::cli {
namespace {

constexpr std::string_view kQuotaKeys[] = {"producer_byte_rate", "consumer_byte_rate",
                                           "request_percentage", "controller_mutation_rate"};

Status invalid(std::string message) {
  return Status(ErrorCode::INVALID_CONFIG, std::move(message));
}

std::string known_quota_keys() { return fmt::format("{}", fmt::join(kQuotaKeys, ", ")); }

std::string quota_type_of(std::string_view entity_type) {
  return std::string(entity_type == kUsersEntity ? client::kQuotaEntityUser
                                                 : client::kQuotaEntityClientId);
}

// A quota value as Java's Double.parseDouble would take it (brackets dropped as kafka-configs.sh
// drops them); finite numbers only.
Result<double> quota_value(const ConfigItem& item) {
  std::string text = item.value;
  std::erase_if(text, [](char c) { return c == '[' || c == ']'; });
  std::string_view t = trim(text);
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  double v = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size() || !std::isfinite(v))
    return invalid(
        fmt::format("--add-config: the value of {} is not a number: '{}'", item.key, item.value));
  return v;
}

bool users_only(const ConfigsArgs& a) {
  return a.entity_types.size() == 1 && a.entity_types.front() == kUsersEntity;
}

// "alice" for SCRAM; check_configs_args made sure an --alter names every type.
const std::optional<std::string>& user_name(const ConfigsArgs& a) { return a.entity_names.front(); }

Status unknown_key(const ConfigsArgs& a, std::string_view option, const std::string& key) {
  if (users_only(a))
    return invalid(
        fmt::format("{}: '{}' is not a config of users (known: {}, SCRAM-SHA-256, "
                    "SCRAM-SHA-512)",
                    option, key, known_quota_keys()));
  return invalid(fmt::format("{}: '{}' is not a quota config (known: {}){}", option, key,
                             known_quota_keys(),
                             is_scram_key(key) ? "; SCRAM credentials are for users alone" : ""));
}

Status add_scram(const ConfigsArgs& a, const std::vector<std::string>& items,
                 const std::vector<std::string>& deletes, QuotaAlterPlan& plan) {
  if (items.empty() && deletes.empty()) return Status::OK();
  if (!user_name(a))
    return invalid(
        "--entity-default is not allowed for users with SCRAM credentials: they belong to named "
        "users");
  const std::string& user = *user_name(a);
  if (!items.empty()) {
    auto upserts = parse_scram_add_config(fmt::format("{}", fmt::join(items, ",")), user);
    if (!upserts.ok()) return upserts.status();
    plan.scram_upserts = std::move(*upserts);
  }
  if (!deletes.empty()) {
    auto dels = parse_scram_delete_config(fmt::format("{}", fmt::join(deletes, ",")), user);
    if (!dels.ok()) return dels.status();
    plan.scram_deletes = std::move(*dels);
  }
  return Status::OK();
}

}  // namespace

bool is_quota_key(std::string_view key) {
  return std::find(std::begin(kQuotaKeys), std::end(kQuotaKeys), key) != std::end(kQuotaKeys);
}

std::string java_double(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  char buf[64];
  const double magnitude = std::fabs(v);
  if (magnitude >= 1e-3 && magnitude < 1e7) {
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
    std::string out(buf, end);
    if (out.find('.') == std::string::npos) out += ".0";
    return out;
  }
  // The shortest digits that read back as v, as "d.dddE<exponent>".
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  const std::string sci(buf, end);  // "1.048576e+07"
  const size_t e = sci.find('e');
  std::string mantissa = sci.substr(0, e);
  if (mantissa.find('.') == std::string::npos) mantissa += ".0";
  return fmt::format("{}E{}", mantissa, std::stoi(sci.substr(e + 1)));
}

client::QuotaEntity quota_entity(const ConfigsArgs& a) {
  client::QuotaEntity out;
  for (size_t i = 0; i < a.entity_types.size() && i < a.entity_names.size(); ++i) {
    out.push_back({quota_type_of(a.entity_types[i]), a.entity_names[i]});
  }
  return out;
}

client::QuotaFilter quota_filter(const ConfigsArgs& a) {
  client::QuotaFilter f;
  f.strict = true;
  for (size_t i = 0; i < a.entity_types.size(); ++i) {
    client::QuotaFilterComponent& c = f.components.emplace_back();
    c.entity_type = quota_type_of(a.entity_types[i]);
    if (i >= a.entity_names.size()) {
      c.match_type = client::QuotaMatchType::any;
    } else if (a.entity_names[i]) {
      c.match_type = client::QuotaMatchType::exact;
      c.match = a.entity_names[i];
    } else {
      c.match_type = client::QuotaMatchType::default_entity;
    }
  }
  return f;
}

std::string quota_line(const client::QuotaEntry& e) {
  // Kafka names the user first, then the client id, whatever order the entity has.
  std::vector<std::string> parts;
  for (std::string_view type : {client::kQuotaEntityUser, client::kQuotaEntityClientId}) {
    for (const client::QuotaEntityPart& p : e.entity) {
      if (p.type != type) continue;
      const std::string_view label = type == client::kQuotaEntityUser ? "user-principal" : type;
      parts.push_back(p.name ? fmt::format("{} '{}'", label, *p.name)
                             : fmt::format("the default {}", label));
    }
  }
  for (const client::QuotaEntityPart& p : e.entity) {
    if (p.type == client::kQuotaEntityUser || p.type == client::kQuotaEntityClientId) continue;
    parts.push_back(p.name ? fmt::format("{} '{}'", p.type, *p.name)
                           : fmt::format("the default {}", p.type));
  }
  std::vector<client::QuotaValue> values = e.values;
  std::sort(values.begin(), values.end(),
            [](const auto& x, const auto& y) { return x.key < y.key; });
  std::vector<std::string> items;
  for (const client::QuotaValue& v : values) {
    items.push_back(fmt::format("{}={}", v.key, java_double(v.value)));
  }
  return fmt::format("Quota configs for {} are {}", fmt::join(parts, ", "), fmt::join(items, ", "));
}

bool describes_scram(const ConfigsArgs& a) {
  return users_only(a) && std::all_of(a.entity_names.begin(), a.entity_names.end(),
                                      [](const auto& n) { return n.has_value(); });
}

Result<QuotaAlterPlan> quota_alter_plan(const ConfigsArgs& a) {
  QuotaAlterPlan plan;
  std::vector<std::string> scram_items;
  std::vector<std::string> scram_deletes;
  if (!a.add_config.empty()) {
    auto items = split_add_config(a.add_config);
    if (!items.ok()) return items.status();
    for (const ConfigItem& item : *items) {
      if (is_quota_key(item.key)) {
        auto v = quota_value(item);
        if (!v.ok()) return v.status();
        plan.quota_ops.push_back({item.key, *v, false});
      } else if (is_scram_key(item.key) && users_only(a)) {
        scram_items.push_back(fmt::format("{}={}", item.key, item.value));
      } else {
        return unknown_key(a, "--add-config", item.key);
      }
    }
  }
  if (!a.delete_config.empty()) {
    auto keys = parse_delete_config(a.delete_config);
    if (!keys.ok()) return keys.status();
    for (const std::string& key : *keys) {
      if (is_quota_key(key)) {
        auto added = std::find_if(plan.quota_ops.begin(), plan.quota_ops.end(),
                                  [&](const client::QuotaOp& op) { return op.key == key; });
        if (added != plan.quota_ops.end())
          return invalid(fmt::format("{} is both added and deleted", key));
        plan.quota_deletes.push_back(key);
      } else if (is_scram_key(key) && users_only(a)) {
        scram_deletes.push_back(key);
      } else {
        return unknown_key(a, "--delete-config", key);
      }
    }
  }
  for (const std::string& key : plan.quota_deletes) plan.quota_ops.push_back({key, 0, true});
  if (Status s = add_scram(a, scram_items, scram_deletes, plan); !s.ok()) return s;
  for (const auto& d : plan.scram_deletes) {
    for (const auto& u : plan.scram_upserts) {
      if (u.mechanism == d.mechanism)
        return invalid(fmt::format("{} is both added and deleted",
                                   security::scram_mechanism_name(d.mechanism)));
    }
  }
  return plan;
}

}  // namespace mirra::cli
