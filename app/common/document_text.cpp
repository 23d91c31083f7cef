#include "app/common/document_text.h"

#include "engine/common/error.h"
#include "engine/common/input_file.h"
#include "engine/tokenizer/utf8.h"

namespace snapdoc {

void check_document_text(const std::string& text, const std::string& what) {
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw Error(what + " is empty");
    if (const auto nul = text.find('\0'); nul != std::string::npos)
        throw Error(what + " looks binary (NUL byte at offset " + std::to_string(nul) + "), not text");
    std::string_view rest = text;
    std::size_t offset = 0;
    while (!rest.empty()) {
        const std::size_t n = utf8::sequence_length(rest);
        if (n == 0)
            throw Error(what + " is not valid UTF-8 (bad byte 0x" + [&] {
                static const char* hex = "0123456789abcdef";
                const unsigned char b = static_cast<unsigned char>(rest[0]);
                return std::string{hex[b >> 4], hex[b & 15]};
            }() + " at offset " + std::to_string(offset) + ")");
        rest.remove_prefix(n);
        offset += n;
    }
}

std::string read_document_text(const std::filesystem::path& path, int64_t max_bytes) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) throw Error("document " + path.string() + " does not exist");
    // The guarded open: a FIFO or a symlink to /dev/zero is refused, not read forever.
    InputFile in = InputFile::open(path, "document");
    if (static_cast<int64_t>(in.size()) > max_bytes)
        throw Error("document " + path.string() + " is " + std::to_string(in.size() >> 20) + " MiB; the limit is " +
                    std::to_string(max_bytes >> 20) + " MiB");
    std::string text = in.read_all(static_cast<std::size_t>(max_bytes));
    check_document_text(text, "document " + path.string());
    return text;
}

}  // namespace snapdoc
