// An exec job's output, which golden and faulty runs are compared on, holds what the kernel printed
// (device printf) after its buffers: a fault that changes the text is an SDC.
#include <catch2/catch.hpp>

#include <fstream>

#include "faultinj/job.h"
#include "temp_dir.h"

using namespace gpuvp;
using namespace gpuvp::fi;

TEST_CASE("exec job: the kernel's printed text follows the buffers in the output", "[printf]") {
  test::TempDir tmp("job_printf");
  const std::string str = tmp("str.bin");
  std::ofstream(str, std::ios::binary).write("hi", 3);  // with its NUL
  nlohmann::json buffer = {{"type", "u8"}, {"count", 3}, {"init", "file"}, {"file", str}};
  nlohmann::json desc = {{"ptx", GPUVP_TEST_DATA "/exec/printf_bad.ptx"},
                         {"kernel", "print_str"},  // printf("[%s]\n", s)
                         {"grid", {1}},
                         {"block", {2}},
                         {"args", {{{"buffer", buffer}}}}};
  auto job = exec_job(Config::preset("tx2"), desc, "printf job");
  Platform p(job->config(), job->hooks());
  p.run([&](rt::Runtime& rt) { job->run(rt); });
  std::vector<uint8_t> out = job->output();
  CHECK(std::string(out.begin(), out.end()) == std::string("hi\0", 3) + "[hi]\n[hi]\n");
}
