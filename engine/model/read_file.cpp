#include "engine/model/read_file.h"

#include "engine/common/input_file.h"

namespace snapdoc {

std::string read_small_file(const std::filesystem::path& path, std::size_t max_bytes) {
    return read_regular_file(path, max_bytes);
}

}  // namespace snapdoc
