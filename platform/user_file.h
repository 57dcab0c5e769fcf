#pragma once
// Every file a user names on the command line or in one of their files is read here: a directory, a
// FIFO (which would block), a device such as /dev/zero (which never ends) or a socket is refused at
// once, and so is a regular file too large for what it should hold. Errors (ConfigError, exit 2) name
// the file and what it was for.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace gpuvp {

// Larger than any PTX, configuration, launch, campaign or experiment file a person writes.
constexpr uint64_t kMaxUserFileBytes = uint64_t{256} << 20;

// The whole file; `what` says what it is for ("--config", "campaign file", ...).
std::string read_user_file(const std::string& path, const std::string& what,
                           uint64_t max_bytes = kMaxUserFileBytes);

// A JSON document the user wrote: read_user_file, then parse_user_json (platform/config/json_text.h).
nlohmann::json read_user_json(const std::string& path, const std::string& what);

// Throws the same errors as read_user_file without reading (an input that is read later).
void check_user_file(const std::string& path, const std::string& what, uint64_t max_bytes = kMaxUserFileBytes);

}  // namespace gpuvp
