// Report: the text report of a store, with hand-worked AVF, interval, MTBF and FIT figures.
#include <catch2/catch.hpp>

#include "faultinj/report.h"
#include "faultinj/temp_dir.h"

using namespace gpuvp::fi;
using Catch::Matchers::Contains;
using gpuvp::fi::test::TempDir;

namespace {
const char* kFile = R"({"name": "va", "platform": {"preset": "flexgrip", "set": {"sm.count": 2}},
  "workload": {"name": "vectorAdd"}, "targets": ["gpu.sched.*"], "exclude": ["gpu.sched.prng"],
  "size": {"margin": 0.01, "confidence": 0.95}})";

Store make_store(const std::string& path) {
  Store s = Store::create(path, {"va", kFile, "h", 1, "b1", "2026-11-23T00:00:00Z"});
  std::vector<Fault> faults(10);
  for (uint64_t i = 0; i < faults.size(); ++i) {
    faults[i].id = i;
    faults[i].target = i == 1 ? "gpu.sched.state" : "gpu.sched.num_blocks[" + std::to_string(i % 2) + "]";
  }
  s.add_faults(faults);
  return s;
}

void add(Store& s, uint64_t id, Outcome o, DueKind k = DueKind::None) {
  RunRecord r;
  r.fault_id = id;
  r.outcome = o;
  r.due_kind = k;
  s.add_run(r);
}
}  // namespace

TEST_CASE("report: classes, tables, MTBF and FIT") {
  TempDir d("report_full");
  Store s = make_store(d("c.db"));
  s.set_golden({100, 900, 1000, "out", 64, 80, 0.5, 1000, "[]"});
  add(s, 0, Outcome::Masked);
  add(s, 1, Outcome::SDC);
  add(s, 2, Outcome::SDC);
  add(s, 3, Outcome::DUE, DueKind::Tlm);
  add(s, 4, Outcome::ToolError);
  const std::string r = text_report(s, 1e-4);
  CHECK_THAT(r, Contains("Campaign: va"));
  CHECK_THAT(r, Contains("preset flexgrip"));
  CHECK_THAT(r, Contains("targets: gpu.sched.* minus gpu.sched.prng"));
  CHECK_THAT(r, Contains("Runs: 5 of 10 done (5 pending)"));
  CHECK_THAT(r, Contains("5 runs, 4 faults injected"));
  // SDC 2 of 4 injected: Wilson(2, 4) = 0.5 -+ 1.96 sqrt(0.0625 + 0.060025) / 1.9604 = [0.15, 0.85].
  CHECK_THAT(r, Contains("sdc                           2   50.00 % [ 15.00,  85.00]"));
  CHECK_THAT(r, Contains("tlm                         1"));
  CHECK_THAT(r, Contains("gpu.sched.num_blocks"));
  CHECK_THAT(r, Contains("gpu.sched.state"));
  // exec time 800 ps = 8e-10 s, cross section 0.5: MTBF 1.6e-9 s.
  CHECK_THAT(r, Contains("SDC / injected = 2 / 4, flux = 1 / 8e-10 s): 1.6e-09 s"));
  // 1e-4 FIT/bit x 1000 bits x 0.5 = 0.05 FIT; 1e9 / 0.05 = 2e10 h.
  CHECK_THAT(r, Contains("0.05 FIT, MTBF 2e+10 h"));
}

TEST_CASE("report: no runs and no golden run divide by nothing") {
  TempDir d("report_empty");
  Store s = make_store(d("c.db"));
  std::string r = text_report(s, std::nullopt);
  CHECK_THAT(r, Contains("Golden run: not recorded"));
  CHECK_THAT(r, Contains("Runs: 0 of 10 done"));
  CHECK_THAT(r, Contains("sdc                           0    0.00 % [  0.00, 100.00]"));
  CHECK_THAT(r, Contains("MTBF: needs the golden run"));
  s.set_golden({0, 1000, 1000, "out", 64, 80, 0.5, 10, "[]"});
  add(s, 0, Outcome::Masked);
  r = text_report(s, 1.0);
  CHECK_THAT(r, Contains("): inf s"));
  CHECK_THAT(r, Contains("0 FIT, MTBF inf h"));
}

TEST_CASE("report: every metric says what it is, tolerable counted with and without, a default raw rate") {
  TempDir d("report_labels");
  Store s = make_store(d("c.db"));
  s.set_golden({100, 900, 1000, "out", 64, 80, 0.5, 1000, "[]"});
  add(s, 0, Outcome::Masked);
  add(s, 1, Outcome::SDC);
  add(s, 2, Outcome::Tolerable);
  add(s, 3, Outcome::Tolerable);
  const std::string r = text_report(s, std::nullopt);
  CHECK_THAT(r, Contains("AVF of a class = its runs / faults injected, in %, [95 % Wilson score interval]"));
  CHECK_THAT(r, Contains("faults injected = runs - tool errors"));
  // SDC 1 of 4 = 25 %; with the two tolerable runs 3 of 4 = 75 %.
  CHECK_THAT(r, Contains("sdc                           1   25.00 %"));
  CHECK_THAT(r, Contains("tolerable                     2   50.00 %"));
  CHECK_THAT(r, Contains("(sdc + tolerable) / injected:  75.00 %"));
  CHECK_THAT(r, Contains("SDC AVF = sdc runs / faults injected there"));
  CHECK_THAT(r, Contains("simulated seconds between SDCs if one fault struck every execution"));
  CHECK_THAT(r, Contains("FIT (failures per 10^9 device hours) = raw FIT/bit x state bits x AVF"));
  // No rate given: the documented default, named as one. 1e-3 x 1000 bits x 0.25 = 0.25 FIT, 4e9 h.
  CHECK_THAT(r, Contains("raw rate 0.001 FIT/bit (default: 1000 FIT per Mbit"));
  CHECK_THAT(r, Contains("sdc FIT = 0.001 FIT/bit x 1000 bits x AVF 0.25: 0.25 FIT, MTBF 4e+09 h"));
  CHECK_THAT(r, Contains("Per structure"));
  CHECK_THAT(r, Contains("block scheduler"));
  // --raw-fit names itself.
  CHECK_THAT(text_report(s, 2e-3), Contains("raw rate 0.002 FIT/bit (--raw-fit)"));
}

TEST_CASE("report: the campaign file's raw_fit_per_bit is the raw rate") {
  TempDir d("report_raw_key");
  std::string file = kFile;
  file.insert(file.size() - 1, R"(, "raw_fit_per_bit": 0.0005)");
  Store s = Store::create(d("c.db"), {"va", file, "h", 1, "b1", "2026-11-23T00:00:00Z"});
  s.set_golden({100, 900, 1000, "out", 64, 80, 0.5, 1000, "[]"});
  // 5e-4 x 1000 bits x AVF 0 = 0 FIT.
  CHECK_THAT(text_report(s, std::nullopt), Contains("raw rate 0.0005 FIT/bit (the campaign file's raw_fit_per_bit)"));
}

TEST_CASE("report: a windowed campaign's study MTBF takes the window as its exposure") {
  TempDir d("report_window");
  std::string file = kFile;
  file.insert(file.size() - 1, R"(, "window": {"from_ns": 2, "to_ns": 4})");
  Store s = Store::create(d("c.db"), {"va", file, "h", 1, "b1", "2026-11-23T00:00:00Z"});
  s.set_golden({100, 9900, 10000, "out", 64, 80, 0.5, 1000, "[]"});
  std::vector<Fault> faults(4);
  for (uint64_t i = 0; i < faults.size(); ++i) {
    faults[i].id = i;
    faults[i].target = "gpu.sched.state";
  }
  s.add_faults(faults);
  add(s, 0, Outcome::SDC);
  add(s, 1, Outcome::Masked);
  add(s, 2, Outcome::Masked);
  add(s, 3, Outcome::Masked);
  const std::string r = text_report(s, std::nullopt);
  // Faults struck only in 2 .. 4 ns: flux 1 / 2e-9 s (not 1 / 9.8e-9 s, the execution window); cross
  // section 1 / 4: MTBF = 2e-9 / 0.25 = 8e-9 s.
  CHECK_THAT(r, Contains("SDC / injected = 1 / 4, flux = 1 / 2e-09 s): 8e-09 s"));
  CHECK_THAT(r, Contains("if one fault struck every window"));
  CHECK_THAT(r, Contains("(flux = 1 / the campaign's window 2 .. 4 ns, where its faults struck)"));
  // The same store without a window: the execution window, 9800 ps.
  Store plain = make_store(d("p.db"));
  plain.set_golden({100, 9900, 10000, "out", 64, 80, 0.5, 1000, "[]"});
  add(plain, 0, Outcome::SDC);
  add(plain, 2, Outcome::Masked);
  add(plain, 3, Outcome::Masked);
  add(plain, 4, Outcome::Masked);
  // 9.8e-9 / 0.25 = 3.92e-8 s.
  CHECK_THAT(text_report(plain, std::nullopt), Contains("flux = 1 / 9.8e-09 s): 3.92e-08 s"));
  CHECK_THAT(text_report(plain, std::nullopt), Contains("(flux = 1 / the execution window)"));
}
