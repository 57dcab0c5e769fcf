#pragma once
// Helpers of the campaign CLI tests: files, and `gpuvp campaign export DB --csv -` read back by column.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common/subprocess.h"

namespace gpuvp::fi::test {

inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

inline std::string slurp_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// One CSV record per line (the export never puts a newline in a field); fields may be quoted.
inline std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

using Row = std::map<std::string, std::string>;

struct ExportTable {
  std::vector<std::string> header;
  std::vector<Row> rows;  // in id order
};

// `gpuvp campaign export DB --csv -`: every row, by column name.
inline ExportTable export_table(const std::string& db) {
  gpuvp::test::RunResult r = gpuvp::test::run_gpuvp(fmt::format("campaign export {} --csv -", db));
  INFO(r.err);
  REQUIRE(r.status == 0);
  ExportTable t;
  std::istringstream in(r.out);
  std::string line;
  REQUIRE(std::getline(in, line));
  t.header = split_csv(line);
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto f = split_csv(line);
    REQUIRE(f.size() == t.header.size());
    Row row;
    for (size_t i = 0; i < f.size(); ++i) row[t.header[i]] = f[i];
    t.rows.push_back(row);
  }
  return t;
}

// Writes the campaign `text` to `file`, runs it to the store `db` and reads its export back.
inline ExportTable run_campaign_table(const std::string& file, const std::string& db, const std::string& text) {
  write_file(file, text);
  const auto r = gpuvp::test::run_gpuvp(fmt::format("campaign run {} -q --db {}", file, db));
  INFO(r.err);
  REQUIRE(r.status == 0);
  return export_table(db);
}

}  // namespace gpuvp::fi::test
