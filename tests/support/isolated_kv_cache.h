// Keeps test processes (and the snapdoc-cli runs they start) out of the user's real K/V cache:
// XDG_CACHE_HOME points at a per-process temporary folder, removed at exit. Each test suite links
// one file that instantiates IsolatedKvCacheHome at static-initialisation time, before any test.
#pragma once

#include <filesystem>

namespace snapdoc::testing {

class IsolatedKvCacheHome {
public:
    IsolatedKvCacheHome();
    const std::filesystem::path& path() const;
};

}  // namespace snapdoc::testing
