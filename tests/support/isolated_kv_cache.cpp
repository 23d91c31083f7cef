#include "tests/support/isolated_kv_cache.h"

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <system_error>

namespace snapdoc::testing {

namespace {
std::filesystem::path& home() {
    static std::filesystem::path p;
    return p;
}
void remove_home() {
    std::error_code ec;
    if (!home().empty()) std::filesystem::remove_all(home(), ec);
}
}  // namespace

IsolatedKvCacheHome::IsolatedKvCacheHome() {
    if (!home().empty()) return;
    std::error_code ec;
    std::string tmpl = (std::filesystem::temp_directory_path(ec) / "snapdoc-test-xdg-cache-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();  // tests must never fall back to the real cache
    home() = tmpl;
    ::setenv("XDG_CACHE_HOME", tmpl.c_str(), 1);
    std::atexit(remove_home);
}

const std::filesystem::path& IsolatedKvCacheHome::path() const {
    return home();
}

}  // namespace snapdoc::testing
