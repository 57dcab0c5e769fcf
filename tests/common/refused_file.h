#pragma once
// Bad input files of the study commands: each is refused with status 2 and a message naming the file
// and the key, before anything runs (the --out folder is never made).
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>

#include "common/subprocess.h"

namespace gpuvp::test {

// Writes `text` to a fresh file, runs `gpuvp COMMAND FILE --out DIR`, and checks the refusal holds `want`.
inline void check_refused_file(const std::string& command, const std::string& text, const std::string& want) {
  const std::string f = temp_path("refused.json"), out = temp_path("refused_out");
  FILE* fp = std::fopen(f.c_str(), "w");
  REQUIRE(fp);
  std::fputs(text.c_str(), fp);
  std::fclose(fp);
  const RunResult r = run_gpuvp(fmt::format("{} {} --out {}", command, f, out));
  std::remove(f.c_str());
  INFO(command << " on " << text << "\n" << r.out << r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find(f + ": ") != std::string::npos);
  CHECK(r.err.find(want) != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));
}

}  // namespace gpuvp::test
