#include "app/documents/html_nesting_bound.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <vector>

namespace snapdoc::documents {

namespace {

bool one_of(const std::string& name, std::initializer_list<const char*> names) {
    for (const char* n : names)
        if (name == n) return true;
    return false;
}

bool is_void(const std::string& n) {
    return one_of(n, {"area", "base", "basefont", "bgsound", "br", "col", "embed", "frame", "hr", "img", "input",
                      "keygen", "link", "meta", "param", "source", "track", "wbr"});
}

// Text up to the element's own end tag: no tags are parsed inside.
bool is_raw_text(const std::string& n) {
    return one_of(n, {"script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes"});
}

// An end tag does not close elements past one of these (HTML's "in scope" boundaries).
bool is_scope_boundary(const std::string& n) {
    return one_of(n, {"table", "td", "th", "caption", "template", "html", "applet", "object", "marquee"});
}

// HTML's implied end tags for the innermost open element: does a new `opening` close `top`?
bool closes_implicitly(const std::string& opening, const std::string& top) {
    if (opening == "li") return top == "li";
    if (opening == "p") return top == "p";
    if (opening == "dt" || opening == "dd") return top == "dt" || top == "dd";
    if (opening == "option") return top == "option";
    if (opening == "td" || opening == "th") return top == "td" || top == "th";
    if (opening == "tr") return top == "td" || top == "th" || top == "tr";
    return false;
}

bool is_ascii_letter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool is_name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == ':' || c == '_';
}

// Index of the tag's closing '>' at or after `from`, or size() if none. A quote opens an attribute
// value only right after "=" (as HTML's tokenizer reads it), so `<p don't>` still ends at its '>'.
std::size_t tag_end(std::string_view html, std::size_t from) {
    char quote = 0;
    char last = 0;  // the last character outside quotes that is not a space
    for (std::size_t j = from; j < html.size(); ++j) {
        const char c = html[j];
        if (quote) {
            if (c == quote) quote = 0;
        } else if ((c == '"' || c == '\'') && last == '=') {
            quote = c;
        } else if (c == '>') {
            return j;
        } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f') {
            last = c;
        }
    }
    return html.size();
}

// Where "</name" starts at or after `from`, case-insensitively; size() if nowhere.
std::size_t find_end_tag(std::string_view html, const std::string& name, std::size_t from) {
    for (std::size_t at = html.find("</", from); at != std::string_view::npos; at = html.find("</", at + 2)) {
        if (at + 2 + name.size() > html.size()) break;
        bool same = true;
        for (std::size_t k = 0; k < name.size() && same; ++k)
            same = std::tolower(static_cast<unsigned char>(html[at + 2 + k])) == name[k];
        if (same) return at;
    }
    return html.size();
}

struct Open {
    std::string name;
    bool kept;
};

// Inside <svg> or <math>, where "<x/>" is an element without content. Looks a bounded way down.
bool in_foreign(const std::vector<Open>& open) {
    for (std::size_t k = open.size(), looked = 0; k > 0 && looked < 64; --k, ++looked)
        if (open[k - 1].name == "svg" || open[k - 1].name == "math") return true;
    return false;
}

// How far down the open elements an end tag looks for its start tag: a stray end tag deeper than
// this is unmatched, which keeps the pass linear on malformed input.
constexpr int kEndTagSearch = 16;

}  // namespace

BoundedHtml bound_html_nesting(std::string_view in, int max_depth, bool xhtml) {
    BoundedHtml out;
    out.html.reserve(in.size());
    std::vector<Open> open;
    const std::size_t n = in.size();
    std::size_t i = 0;
    while (i < n) {
        const std::size_t lt = in.find('<', i);
        if (lt == std::string_view::npos) {
            out.html.append(in.substr(i));
            break;
        }
        out.html.append(in.substr(i, lt - i));
        i = lt;
        const char next = i + 1 < n ? in[i + 1] : '\0';
        if (next == '!' || next == '?') {
            // Comment, doctype, CDATA, processing instruction: copied as they are.
            std::size_t end;
            if (in.substr(i, 4) == "<!--") {
                end = in.find("-->", i + 4);
                end = end == std::string_view::npos ? n : end + 3;
            } else {
                end = in.find('>', i + 2);
                end = end == std::string_view::npos ? n : end + 1;
            }
            out.html.append(in.substr(i, end - i));
            i = end;
            continue;
        }
        const bool closing = next == '/';
        const std::size_t name_at = i + (closing ? 2 : 1);
        if (name_at >= n || !is_ascii_letter(in[name_at])) {
            out.html += '<';  // a "<" that starts no tag is text
            ++i;
            continue;
        }
        std::size_t j = name_at;
        std::string name;
        while (j < n && is_name_char(in[j])) name += static_cast<char>(std::tolower(static_cast<unsigned char>(in[j++])));
        j = tag_end(in, j);
        const std::size_t end = j < n ? j + 1 : n;
        const std::string_view tag = in.substr(i, end - i);
        i = end;
        if (closing) {
            int found = -1;
            for (int k = static_cast<int>(open.size()) - 1, looked = 0; k >= 0 && looked < kEndTagSearch; --k, ++looked) {
                const std::string& at = open[static_cast<std::size_t>(k)].name;
                if (at == name) {
                    found = k;
                    break;
                }
                if (is_scope_boundary(at)) break;
            }
            const bool kept = found >= 0 ? open[static_cast<std::size_t>(found)].kept
                                         : static_cast<int>(open.size()) < max_depth;
            if (found >= 0) open.resize(static_cast<std::size_t>(found));
            if (kept)
                out.html.append(tag);
            else
                ++out.dropped_tags;
            continue;
        }
        const bool slash = tag.size() >= 2 && tag[tag.size() - 2] == '/';
        if (is_void(name) || (slash && in_foreign(open))) {
            out.html.append(tag);
            continue;
        }
        if (slash && xhtml) {
            // XHTML's empty element ("<title/>", "<a id='p3'/>"): written out with its end tag, as
            // HTML would otherwise open it (and a "<title/>" would swallow the chapter as its text).
            out.html.append(tag);
            out.html += "</" + name + ">";
            continue;
        }
        // Otherwise "<div/>" opens a <div> in HTML (the slash counts only in SVG and MathML).
        while (!open.empty() && closes_implicitly(name, open.back().name)) open.pop_back();
        const bool kept = static_cast<int>(open.size()) < max_depth;
        if (kept)
            out.html.append(tag);
        else
            ++out.dropped_tags;
        open.push_back({name, kept});
        out.max_depth_seen = std::max(out.max_depth_seen, static_cast<int>(open.size()));
        if (is_raw_text(name)) {
            // Its text runs to its end tag; a tag-like "<b>" inside a script is not markup.
            const std::size_t close = find_end_tag(in, name, i);
            if (kept) out.html.append(in.substr(i, close - i));  // a left-out script's code is not text either
            i = close;
        }
    }
    return out;
}

}  // namespace snapdoc::documents
