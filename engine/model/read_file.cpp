#include "engine/model/read_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "engine/common/error.h"

namespace snapdoc {

std::string read_small_file(const std::filesystem::path& path, std::size_t max_bytes) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status)) throw FormatError("cannot open '" + path.string() + "': No such file or directory");
    if (std::filesystem::is_directory(status)) throw FormatError("cannot open '" + path.string() + "': it is a directory, not a file");
    if (!std::filesystem::is_regular_file(status)) throw FormatError("cannot open '" + path.string() + "': it is not a regular file");
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) throw FormatError("cannot open '" + path.string() + "': " + ec.message());
    if (size > max_bytes) {
        throw FormatError("'" + path.string() + "' is " + std::to_string(size) + " bytes, more than the " +
                          std::to_string(max_bytes) + " expected of this file");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) throw FormatError("cannot open '" + path.string() + "': " + std::strerror(errno));
    std::string data(static_cast<std::size_t>(size), '\0');
    in.read(data.data(), static_cast<std::streamsize>(size));
    if (static_cast<std::size_t>(in.gcount()) != size) throw FormatError("cannot read '" + path.string() + "'");
    return data;
}

}  // namespace snapdoc
