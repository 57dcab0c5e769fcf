#pragma once
// Command-line options read by platform/int_text.h's one integer reader (decimal or 0x hexadecimal,
// exactly; CLI11's own conversion reads 010 as octal and wraps -1).
#include <cstdint>
#include <string>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace gpuvp {
struct RunOutputs;

// An unsigned CLI option in [lo, hi] read by parse_int_text; a bad value is a CLI11 validation error
// naming the option (exit 2).
CLI::Option* add_uint_option(CLI::App* app, const std::string& name, uint64_t& target, const std::string& desc,
                             uint64_t lo, uint64_t hi);
CLI::Option* add_uint_option(CLI::App* app, const std::string& name, unsigned& target, const std::string& desc,
                             uint64_t lo, uint64_t hi);

// A real-number CLI option: a finite number in [lo, hi] ((lo, hi] when `lo_open`; hi infinite: no
// upper bound); anything else is a CLI11 validation error naming the option and the range (exit 2).
CLI::Option* add_real_option(CLI::App* app, const std::string& name, double& target, const std::string& desc,
                             double lo, double hi, bool lo_open = false);

// An output file's option: an empty path (--stats "") is a CLI11 validation error, not "no output".
CLI::Option* add_path_option(CLI::App* app, const std::string& name, std::string& target, const std::string& desc);

// --stats FILE, --timeline FILE and --vcd PREFIX, the same for every command that runs work.
void add_output_options(CLI::App* app, RunOutputs& out);

}  // namespace gpuvp
