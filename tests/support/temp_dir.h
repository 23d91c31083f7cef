// A fresh, uniquely named directory under the system temp dir, removed (recursively) when the
// object goes out of scope, so tests never leave files behind or see each other's files.
#pragma once

#include <filesystem>
#include <string>

namespace snapdoc::testing {

class TempDir {
public:
    explicit TempDir(const std::string& prefix = "snapdoc-test");
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::filesystem::path& path() const { return path_; }
    std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

private:
    std::filesystem::path path_;
};

}  // namespace snapdoc::testing
