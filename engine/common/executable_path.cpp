#include "engine/common/executable_path.h"

#include <system_error>

namespace snapdoc {

std::filesystem::path executable_dir() {
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec || exe.empty()) return {};
    return exe.parent_path();
}

}  // namespace snapdoc
