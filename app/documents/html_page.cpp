#include "app/documents/html_page.h"

#include <gumbo.h>

#include <algorithm>
#include <initializer_list>
#include <utility>
#include <vector>

#include "app/documents/html_charset.h"
#include "app/documents/html_nesting_bound.h"
#include "engine/common/error.h"

namespace snapdoc::documents {

struct HtmlPage::Parsed {
    std::string html;  // gumbo's nodes point into it: kept as long as the tree
    GumboOutput* output = nullptr;
    ~Parsed() {
        if (output) gumbo_destroy_output(&kGumboDefaultOptions, output);
    }
};

namespace {

bool is_element(const GumboNode* n) {
    return n && (n->type == GUMBO_NODE_ELEMENT || n->type == GUMBO_NODE_TEMPLATE);
}

bool is_text(const GumboNode* n) {
    return n->type == GUMBO_NODE_TEXT || n->type == GUMBO_NODE_WHITESPACE || n->type == GUMBO_NODE_CDATA;
}

GumboTag tag_of(const GumboNode* n) {
    return is_element(n) ? n->v.element.tag : GUMBO_TAG_UNKNOWN;
}

bool tag_in(const GumboNode* n, std::initializer_list<GumboTag> tags) {
    const GumboTag t = tag_of(n);
    for (GumboTag x : tags)
        if (t == x && is_element(n)) return true;
    return false;
}

const GumboVector& children(const GumboNode* n) {
    static const GumboVector none{nullptr, 0, 0};
    if (n->type == GUMBO_NODE_DOCUMENT) return n->v.document.children;
    return is_element(n) ? n->v.element.children : none;
}

const GumboNode* child(const GumboVector& v, unsigned int i) {
    return static_cast<const GumboNode*>(v.data[i]);
}

std::string attribute(const GumboNode* n, const char* name) {
    const GumboAttribute* a = is_element(n) ? gumbo_get_attribute(&n->v.element.attributes, name) : nullptr;
    return a && a->value ? a->value : "";
}

std::string lower(std::string s) {
    for (char& c : s)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return s;
}

bool has_class(const GumboNode* n, const char* cls) {
    std::string classes = " " + lower(attribute(n, "class")) + " ";
    for (char& c : classes)
        if (c == '\t' || c == '\n' || c == '\r' || c == '\f') c = ' ';
    return classes.find(" " + std::string(cls) + " ") != std::string::npos;
}

// Never text: code, styles, inert templates, pictures, and what the page's <head> holds.
bool never_text(const GumboNode* n) {
    return n->type == GUMBO_NODE_TEMPLATE ||
           tag_in(n, {GUMBO_TAG_SCRIPT, GUMBO_TAG_STYLE, GUMBO_TAG_HEAD, GUMBO_TAG_NOSCRIPT, GUMBO_TAG_TEMPLATE,
                      GUMBO_TAG_SVG, GUMBO_TAG_MATH, GUMBO_TAG_IFRAME, GUMBO_TAG_NOEMBED, GUMBO_TAG_NOFRAMES});
}

// Around the text, not the text: navigation, the site's banner and footer, permalink marks.
// `in_content`: inside an <article> or <main>, where a <header> is the content's own.
bool is_boilerplate(const GumboNode* n, bool in_content) {
    if (tag_in(n, {GUMBO_TAG_NAV, GUMBO_TAG_FOOTER})) return true;
    if (!in_content && tag_in(n, {GUMBO_TAG_HEADER})) return true;
    const std::string role = lower(attribute(n, "role"));
    if (role == "navigation" || role == "banner" || role == "contentinfo" || role == "search") return true;
    return has_class(n, "headerlink");
}

bool is_block(const GumboNode* n) {
    return tag_in(n, {GUMBO_TAG_P, GUMBO_TAG_DIV, GUMBO_TAG_SECTION, GUMBO_TAG_ARTICLE, GUMBO_TAG_HEADER,
                      GUMBO_TAG_FOOTER, GUMBO_TAG_MAIN, GUMBO_TAG_ASIDE, GUMBO_TAG_BLOCKQUOTE, GUMBO_TAG_PRE,
                      GUMBO_TAG_H1, GUMBO_TAG_H2, GUMBO_TAG_H3, GUMBO_TAG_H4, GUMBO_TAG_H5, GUMBO_TAG_H6,
                      GUMBO_TAG_UL, GUMBO_TAG_OL, GUMBO_TAG_LI, GUMBO_TAG_TABLE, GUMBO_TAG_CAPTION, GUMBO_TAG_TR,
                      GUMBO_TAG_DL, GUMBO_TAG_DT, GUMBO_TAG_DD, GUMBO_TAG_FIGURE, GUMBO_TAG_FIGCAPTION,
                      GUMBO_TAG_HR, GUMBO_TAG_BODY, GUMBO_TAG_ADDRESS, GUMBO_TAG_NAV, GUMBO_TAG_HGROUP,
                      GUMBO_TAG_DETAILS, GUMBO_TAG_SUMMARY, GUMBO_TAG_FORM, GUMBO_TAG_FIELDSET,
                      GUMBO_TAG_LEGEND, GUMBO_TAG_CENTER, GUMBO_TAG_MENU});
}

int heading_level(const GumboNode* n) {
    switch (tag_of(n)) {
        case GUMBO_TAG_H1: return 1;
        case GUMBO_TAG_H2: return 2;
        case GUMBO_TAG_H3: return 3;
        case GUMBO_TAG_H4: return 4;
        case GUMBO_TAG_H5: return 5;
        case GUMBO_TAG_H6: return 6;
        default: return 0;
    }
}

bool is_list(const GumboNode* n) {
    return tag_in(n, {GUMBO_TAG_UL, GUMBO_TAG_OL, GUMBO_TAG_MENU});
}

// The deepest element nesting below `root`, counted without recursion (the check must not
// overflow the stack on the depth it is checking). Stops counting past `limit`.
int tree_depth(const GumboNode* root, int limit) {
    struct Frame {
        const GumboNode* node;
        unsigned int next;
    };
    std::vector<Frame> stack{{root, 0}};
    int deepest = 1;
    while (!stack.empty()) {
        Frame& f = stack.back();
        const GumboVector& kids = children(f.node);
        if (f.next >= kids.length) {
            stack.pop_back();
            continue;
        }
        const GumboNode* c = child(kids, f.next++);
        if (!is_element(c)) continue;
        stack.push_back({c, 0});
        deepest = std::max(deepest, static_cast<int>(stack.size()));
        if (deepest > limit) return deepest;
    }
    return deepest;
}

struct Walker {
    StructuredText& out;

    // Text of an inline run, boilerplate and code left out; nested lists are the caller's.
    void inline_text(const GumboNode* n, std::string& text, bool in_content) {
        const GumboVector& kids = children(n);
        for (unsigned int i = 0; i < kids.length; ++i) {
            const GumboNode* c = child(kids, i);
            if (is_text(c)) {
                text += c->v.text.text;
            } else if (is_element(c) && !never_text(c) && !is_boilerplate(c, in_content) && !is_list(c)) {
                if (tag_in(c, {GUMBO_TAG_BR})) text += ' ';
                inline_text(c, text, in_content || tag_in(c, {GUMBO_TAG_ARTICLE, GUMBO_TAG_MAIN}));
                if (is_block(c) || tag_in(c, {GUMBO_TAG_TD, GUMBO_TAG_TH})) text += ' ';
            }
        }
    }

    // A list item's own text, then its sub-lists one level deeper.
    void item(const GumboNode* li, int depth, bool in_content) {
        std::string text;
        inline_text(li, text, in_content);
        out.list_item(depth, text);
        const GumboVector& inner = children(li);
        for (unsigned int k = 0; k < inner.length; ++k)
            if (is_list(child(inner, k))) list(child(inner, k), depth + 1, in_content);
    }

    void list(const GumboNode* l, int depth, bool in_content) {
        const GumboVector& items = children(l);
        for (unsigned int i = 0; i < items.length; ++i) {
            const GumboNode* c = child(items, i);
            if (tag_in(c, {GUMBO_TAG_LI})) {
                item(c, depth, in_content);
            } else if (is_list(c)) {
                list(c, depth + 1, in_content);  // "<ul><ul>": a sub-list without its item
            } else if (is_text(c)) {
                out.list_item(depth, c->v.text.text);  // text outside any item still shows (blank: nothing)
            } else if (is_element(c) && !never_text(c) && !is_boilerplate(c, in_content)) {
                std::string text;
                inline_text(c, text, in_content);
                out.list_item(depth, text);
            }
        }
    }

    void table(const GumboNode* t, bool in_content) {
        const GumboVector& parts = children(t);
        for (unsigned int i = 0; i < parts.length; ++i) {
            const GumboNode* c = child(parts, i);
            if (tag_in(c, {GUMBO_TAG_THEAD, GUMBO_TAG_TBODY, GUMBO_TAG_TFOOT})) {
                table(c, in_content);
            } else if (tag_in(c, {GUMBO_TAG_CAPTION})) {
                std::string text;
                inline_text(c, text, in_content);
                out.paragraph(text);
            } else if (tag_in(c, {GUMBO_TAG_TR})) {
                std::vector<std::string> cells;
                const GumboVector& row = children(c);
                for (unsigned int k = 0; k < row.length; ++k)
                    if (tag_in(child(row, k), {GUMBO_TAG_TD, GUMBO_TAG_TH})) {
                        std::string text;
                        inline_text(child(row, k), text, in_content);
                        cells.push_back(std::move(text));
                    }
                out.table_row(cells);
            }
        }
    }

    // A container: its inline runs become paragraphs, its block children are walked in turn.
    void blocks(const GumboNode* parent, bool in_content) {
        std::string pending;
        auto flush = [&] {
            out.paragraph(pending);
            pending.clear();
        };
        const GumboVector& kids = children(parent);
        for (unsigned int i = 0; i < kids.length; ++i) {
            const GumboNode* c = child(kids, i);
            if (is_text(c)) {
                pending += c->v.text.text;
                continue;
            }
            if (!is_element(c) || never_text(c) || is_boilerplate(c, in_content)) continue;
            const bool content = in_content || tag_in(c, {GUMBO_TAG_ARTICLE, GUMBO_TAG_MAIN});
            if (!is_block(c)) {
                if (tag_in(c, {GUMBO_TAG_BR})) pending += ' ';
                inline_text(c, pending, content);
                continue;
            }
            flush();
            if (const int level = heading_level(c)) {
                std::string text;
                inline_text(c, text, content);
                out.heading(level, text);
            } else if (is_list(c)) {
                list(c, 0, content);
            } else if (tag_in(c, {GUMBO_TAG_LI})) {
                item(c, 0, content);  // an item outside any list: still an item, with its sub-lists
            } else if (tag_in(c, {GUMBO_TAG_TABLE})) {
                table(c, content);
            } else if (tag_in(c, {GUMBO_TAG_P, GUMBO_TAG_PRE, GUMBO_TAG_DT, GUMBO_TAG_DD, GUMBO_TAG_FIGCAPTION,
                                  GUMBO_TAG_SUMMARY, GUMBO_TAG_CAPTION, GUMBO_TAG_LEGEND})) {
                std::string text;
                inline_text(c, text, content);
                out.paragraph(text);
            } else {
                blocks(c, content);
            }
        }
        flush();
    }
};

const GumboNode* first_child(const GumboNode* n, GumboTag tag) {
    if (!n) return nullptr;
    const GumboVector& kids = children(n);
    for (unsigned int i = 0; i < kids.length; ++i)
        if (tag_in(child(kids, i), {tag})) return child(kids, i);
    return nullptr;
}

bool any_heading(const GumboNode* n) {
    if (heading_level(n) > 0) return true;
    if (never_text(n)) return false;
    const GumboVector& kids = children(n);
    for (unsigned int i = 0; i < kids.length; ++i)
        if (any_heading(child(kids, i))) return true;  // depth checked at parse
    return false;
}

}  // namespace

HtmlPage::HtmlPage(std::string_view bytes, const std::string& what, Markup markup) : parsed_(std::make_unique<Parsed>()) {
    const bool utf16 = bytes.size() >= 2 && ((bytes[0] == '\xff' && bytes[1] == '\xfe') ||
                                             (bytes[0] == '\xfe' && bytes[1] == '\xff'));
    if (!utf16 && bytes.find('\0') != std::string_view::npos)
        throw Error(what + " looks binary (it contains NUL bytes), not HTML");
    parsed_->html = bound_html_nesting(html_as_utf8(bytes, what), kMaxHtmlNesting, markup == Markup::Xhtml).html;
    parsed_->output = gumbo_parse_with_options(&kGumboDefaultOptions, parsed_->html.data(), parsed_->html.size());
    if (!parsed_->output || !parsed_->output->root) throw Error(what + " could not be parsed as HTML");
    if (tree_depth(parsed_->output->root, kMaxHtmlTreeDepth) > kMaxHtmlTreeDepth)
        throw Error(what + " nests elements more than " + std::to_string(kMaxHtmlTreeDepth) + " deep");
}

HtmlPage::~HtmlPage() = default;

std::string HtmlPage::title() const {
    const GumboNode* title = first_child(first_child(parsed_->output->root, GUMBO_TAG_HEAD), GUMBO_TAG_TITLE);
    if (!title) return {};
    std::string text;
    const GumboVector& kids = children(title);
    for (unsigned int i = 0; i < kids.length; ++i)
        if (is_text(child(kids, i))) text += child(kids, i)->v.text.text;
    return collapse_whitespace(text);
}

bool HtmlPage::has_heading() const {
    const GumboNode* body = first_child(parsed_->output->root, GUMBO_TAG_BODY);
    return body && any_heading(body);
}

void HtmlPage::append_blocks(StructuredText& out) const {
    const GumboNode* root = parsed_->output->root;
    const GumboNode* body = first_child(root, GUMBO_TAG_BODY);
    Walker{out}.blocks(body ? body : root, false);
}

}  // namespace snapdoc::documents
