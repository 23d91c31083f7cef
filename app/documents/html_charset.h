// A web page's bytes as UTF-8, the only encoding gumbo reads. A byte order mark decides first
// (UTF-8, UTF-16LE/BE); else a <meta charset> (or http-equiv content "...; charset=") in the first
// 1024 bytes, decoded with glibc's iconv; else the page must be UTF-8. A page that is not what it
// says is refused ("<what> is not valid windows-1252 text"), never read as mojibake.
#pragma once

#include <string>
#include <string_view>

namespace snapdoc::documents {

// The charset label the page declares, lower case ("" if none), as HTML's prescan finds it
// (simplified: <meta> tags in the first 1024 bytes).
std::string declared_html_charset(std::string_view bytes);

// Throws snapdoc::Error naming `what` when the bytes cannot be decoded as declared.
std::string html_as_utf8(std::string_view bytes, const std::string& what);

}  // namespace snapdoc::documents
