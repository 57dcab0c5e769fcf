#pragma once
// One line per event: "[level time] module.path: message". The level is set per module prefix
// (gpu.sched=debug); messages are formatted only when their level is enabled. Lines are sc_reports
// (message type = module path; info, warning or error severity), so sc_report_handler settings apply
// to them, and SystemC's own reports are printed in the same format.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <string>
#include <systemc>

namespace gpuvp::log {

enum class Level { Error = 0, Warn = 1, Info = 2, Debug = 3, Trace = 4 };

Level level_for(const std::string& module);
// The most verbose level any module has: a message above it is dropped without looking its module up.
Level max_level();
void set_level(const std::string& module_prefix, Level level);
void set_default_level(Level level);
Level parse_level(const std::string& name);  // throws std::invalid_argument naming the value
void emit(Level level, const std::string& module, const std::string& message);
// Prints every sc_report as "[level time] type: message" (done on first use of emit()).
void install_report_handler();

template <typename... Args>
void write(Level level, const std::string& module, fmt::format_string<Args...> f, Args&&... args) {
  if (level > max_level() || level > level_for(module)) return;
  emit(level, module, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void info(const std::string& m, fmt::format_string<Args...> f, Args&&... a) { write(Level::Info, m, f, std::forward<Args>(a)...); }
template <typename... Args>
void warn(const std::string& m, fmt::format_string<Args...> f, Args&&... a) { write(Level::Warn, m, f, std::forward<Args>(a)...); }
template <typename... Args>
void debug(const std::string& m, fmt::format_string<Args...> f, Args&&... a) { write(Level::Debug, m, f, std::forward<Args>(a)...); }
template <typename... Args>
void error(const std::string& m, fmt::format_string<Args...> f, Args&&... a) { write(Level::Error, m, f, std::forward<Args>(a)...); }

}  // namespace gpuvp::log

// fmt 9 formats sc_time only through an ostream formatter.
template <>
struct fmt::formatter<sc_core::sc_time> : fmt::ostream_formatter {};
