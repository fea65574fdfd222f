// Column-aligned text tables for the CLI's listings.
#include "cli/table.h"

#include <algorithm>

#include <fmt/format.h>

namespace mirra::cli {

Table::Table(std::vector<std::string> header, std::vector<size_t> min_widths)
    : widths_(std::move(min_widths)) {
  widths_.resize(header.size(), 0);
  add(std::move(header));
}

void Table::add(std::vector<std::string> row) {
  row.resize(widths_.size());
  for (size_t i = 0; i < row.size(); ++i) widths_[i] = std::max(widths_[i], row[i].size());
  rows_.push_back(std::move(row));
}

std::string Table::render() const {
  std::string out;
  for (const auto& row : rows_) {
    for (size_t i = 0; i < row.size(); ++i) {
      if (i + 1 == row.size()) {
        out += row[i];
      } else {
        out += fmt::format("{:<{}} ", row[i], widths_[i]);
      }
    }
    out += '\n';
  }
  return out;
}

}  // namespace mirra::cli
