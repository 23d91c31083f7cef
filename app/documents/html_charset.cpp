#include "app/documents/html_charset.h"

#include <iconv.h>

#include <cctype>
#include <cerrno>

#include "engine/common/error.h"
#include "engine/tokenizer/utf8.h"

namespace snapdoc::documents {

namespace {

constexpr std::size_t kPrescanBytes = 1024;

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

// The value after "charset" in `tag` (lower case), "" if none: `charset="x"`, `charset=x`, and
// http-equiv's `content="text/html; charset=x"` alike.
std::string charset_in(std::string_view tag) {
    for (std::size_t at = tag.find("charset"); at != std::string_view::npos; at = tag.find("charset", at + 1)) {
        std::size_t i = at + 7;
        while (i < tag.size() && is_space(tag[i])) ++i;
        if (i >= tag.size() || tag[i] != '=') continue;
        ++i;
        while (i < tag.size() && is_space(tag[i])) ++i;
        if (i < tag.size() && (tag[i] == '"' || tag[i] == '\'')) ++i;
        const std::size_t start = i;
        while (i < tag.size() && !is_space(tag[i]) && tag[i] != '"' && tag[i] != '\'' && tag[i] != ';' &&
               tag[i] != '>' && tag[i] != '/')
            ++i;
        if (i > start) return std::string(tag.substr(start, i - start));
    }
    return {};
}

// WHATWG's Encoding standard reads these labels as windows-1252 (a superset of Latin-1); UTF-16
// declared in a <meta> means UTF-8 (the bytes were already read as ASCII to find it).
std::string iconv_name(const std::string& label) {
    if (label == "iso-8859-1" || label == "latin1" || label == "l1" || label == "iso8859-1" ||
        label == "us-ascii" || label == "ascii" || label == "windows-1252" || label == "cp1252")
        return "WINDOWS-1252";
    if (label == "utf-8" || label == "utf8" || label == "unicode-1-1-utf-8" || label.rfind("utf-16", 0) == 0)
        return "UTF-8";
    return label;
}

std::string convert(std::string_view bytes, const std::string& from, const std::string& label,
                    const std::string& what) {
    iconv_t cd = iconv_open("UTF-8", from.c_str());
    if (cd == reinterpret_cast<iconv_t>(-1))
        throw Error(what + " declares the character set '" + label + "', which snapdoc cannot decode");
    std::string out(bytes.size() * 2 + 16, '\0');
    char* in = const_cast<char*>(bytes.data());
    std::size_t in_left = bytes.size();
    std::size_t done = 0;
    bool failed = false;
    while (in_left > 0) {
        char* dst = out.data() + done;
        std::size_t dst_left = out.size() - done;
        const std::size_t r = iconv(cd, &in, &in_left, &dst, &dst_left);
        done = out.size() - dst_left;
        if (r != static_cast<std::size_t>(-1)) break;
        if (errno == E2BIG) {
            out.resize(out.size() * 2);
            continue;
        }
        failed = true;  // EILSEQ (a byte the charset does not define) or EINVAL (cut short)
        break;
    }
    iconv_close(cd);
    if (failed) throw Error(what + " is not valid " + label + " text");
    out.resize(done);
    return out;
}

}  // namespace

std::string declared_html_charset(std::string_view bytes) {
    const std::string head = lower(bytes.substr(0, kPrescanBytes));
    for (std::size_t at = head.find("<meta"); at != std::string::npos; at = head.find("<meta", at + 5)) {
        const std::size_t end = head.find('>', at);
        const std::string found = charset_in(std::string_view(head).substr(at, end == std::string::npos ? std::string::npos : end - at));
        if (!found.empty()) return found;
    }
    return {};
}

std::string html_as_utf8(std::string_view bytes, const std::string& what) {
    if (bytes.size() >= 3 && bytes.substr(0, 3) == "\xef\xbb\xbf") bytes.remove_prefix(3);
    else if (bytes.size() >= 2 && bytes[0] == '\xff' && bytes[1] == '\xfe')
        return convert(bytes.substr(2), "UTF-16LE", "UTF-16", what);
    else if (bytes.size() >= 2 && bytes[0] == '\xfe' && bytes[1] == '\xff')
        return convert(bytes.substr(2), "UTF-16BE", "UTF-16", what);
    else {
        const std::string label = declared_html_charset(bytes);
        const std::string from = iconv_name(label);
        if (!label.empty() && from != "UTF-8") return convert(bytes, from, label, what);
    }
    if (!utf8::is_valid(bytes)) throw Error(what + " is not valid UTF-8 text");
    return std::string(bytes);
}

}  // namespace snapdoc::documents
