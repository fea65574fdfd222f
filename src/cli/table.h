// Column-aligned text tables, as Kafka's tools print their listings.
#pragma once

#include <string>
#include <vector>

namespace mirra::cli {

// Left-aligned columns, each as wide as its widest cell (at least `min_widths`), one space
// apart; the last column is not padded.
class Table {
 public:
  Table(std::vector<std::string> header, std::vector<size_t> min_widths = {});
  void add(std::vector<std::string> row);
  std::string render() const;

 private:
  std::vector<std::vector<std::string>> rows_;
  std::vector<size_t> widths_;
};

}  // namespace mirra::cli
