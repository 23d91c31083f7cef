#include "app/documents/xhtml_text.h"

#include <initializer_list>
#include <vector>

#include "app/documents/safe_xml.h"

namespace snapdoc::documents {

namespace {

bool named(const xmlNode* n, std::initializer_list<const char*> names) {
    if (!n || n->type != XML_ELEMENT_NODE) return false;
    for (const char* name : names)
        if (xmlStrcasecmp(n->name, reinterpret_cast<const xmlChar*>(name)) == 0) return true;
    return false;
}

bool skipped(const xmlNode* n) {
    return named(n, {"script", "style", "head", "noscript", "template", "nav", "svg", "math"});
}

bool is_block(const xmlNode* n) {
    return named(n, {"p", "div", "section", "article", "header", "footer", "main", "aside", "blockquote", "pre",
                     "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "table", "tr", "dl", "dt", "dd",
                     "figure", "figcaption", "hr", "body", "address", "nav", "hgroup", "details", "summary"}) ||
           skipped(n);
}

int heading_level(const xmlNode* n) {
    if (!n || n->type != XML_ELEMENT_NODE || !n->name) return 0;
    const char* name = reinterpret_cast<const char*>(n->name);
    if ((name[0] == 'h' || name[0] == 'H') && name[1] >= '1' && name[1] <= '6' && name[2] == '\0')
        return name[1] - '0';
    return 0;
}

// Text of an inline run; nested lists are left to the caller (a list item's sub-list).
void inline_text(const xmlNode* n, std::string& out) {
    for (const xmlNode* c = n->children; c; c = c->next) {
        if (c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) {
            if (c->content) out += reinterpret_cast<const char*>(c->content);
        } else if (c->type == XML_ELEMENT_NODE && !skipped(c) && !named(c, {"ul", "ol"})) {
            if (named(c, {"br"})) out += ' ';
            inline_text(c, out);
            if (is_block(c)) out += ' ';
        }
    }
}

struct Walker {
    StructuredText& out;

    void list(const xmlNode* l, int depth) {
        for (const xmlNode* li = l->children; li; li = li->next) {
            if (!named(li, {"li"})) continue;
            std::string text;
            inline_text(li, text);
            out.list_item(depth, text);
            for (const xmlNode* c = li->children; c; c = c->next)
                if (named(c, {"ul", "ol"})) list(c, depth + 1);
        }
    }

    void table(const xmlNode* t) {
        for (const xmlNode* c = t->children; c; c = c->next) {
            if (named(c, {"thead", "tbody", "tfoot"})) {
                table(c);
            } else if (named(c, {"tr"})) {
                std::vector<std::string> cells;
                for (const xmlNode* cell = c->children; cell; cell = cell->next)
                    if (named(cell, {"td", "th"})) {
                        std::string text;
                        inline_text(cell, text);
                        cells.push_back(text);
                    }
                out.table_row(cells);
            }
        }
    }

    // A container: its inline runs become paragraphs, its block children are walked in turn.
    void blocks(const xmlNode* parent) {
        std::string pending;
        auto flush = [&] {
            out.paragraph(pending);
            pending.clear();
        };
        for (const xmlNode* c = parent->children; c; c = c->next) {
            if (c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) {
                if (c->content) pending += reinterpret_cast<const char*>(c->content);
                continue;
            }
            if (c->type != XML_ELEMENT_NODE || skipped(c)) continue;
            if (!is_block(c)) {
                if (named(c, {"br"})) pending += ' ';
                inline_text(c, pending);
                continue;
            }
            flush();
            if (const int level = heading_level(c)) {
                std::string text;
                inline_text(c, text);
                out.heading(level, text);
            } else if (named(c, {"ul", "ol"})) {
                list(c, 0);
            } else if (named(c, {"table"})) {
                table(c);
            } else if (named(c, {"p", "pre", "dt", "dd", "figcaption", "li", "summary"})) {
                std::string text;
                inline_text(c, text);
                out.paragraph(text);
            } else {
                blocks(c);
            }
        }
        flush();
    }
};

}  // namespace

void append_html_blocks(const xmlDoc* doc, StructuredText& out) {
    const xmlNode* root = xmlDocGetRootElement(const_cast<xmlDoc*>(doc));
    const xmlNode* body = find_descendant(root, "body");
    Walker{out}.blocks(body ? body : root);
}

std::string html_title(const xmlDoc* doc) {
    const xmlNode* head = find_descendant(xmlDocGetRootElement(const_cast<xmlDoc*>(doc)), "head");
    return collapse_whitespace(text_content(first_child(head, "title")));
}

}  // namespace snapdoc::documents
