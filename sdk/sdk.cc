// libgpuvp.so: every layer up to the platform, linked whole (sdk/CMakeLists.txt). This file only gives
// the library a source of its own: the version a program can ask for at run time.
namespace gpuvp {
extern "C" const char* gpuvp_sdk_version() { return "0.1.0"; }
}  // namespace gpuvp
