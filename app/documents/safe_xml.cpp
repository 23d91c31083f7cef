#include "app/documents/safe_xml.h"

#include <libxml/parser.h>

#include <climits>
#include <cstring>

#include "engine/common/error.h"

namespace snapdoc::documents {

namespace {

// Iterative, so the check itself cannot overflow the stack on the depth it is checking.
void check_depth(const xmlNode* root, const std::string& what) {
    int depth = 0;
    const xmlNode* n = root;
    for (;;) {
        if (n->children) {
            n = n->children;
            if (++depth > kMaxXmlDepth)
                throw Error(what + " nests elements more than " + std::to_string(kMaxXmlDepth) + " deep");
            continue;
        }
        while (depth > 0 && !n->next) {
            n = n->parent;
            --depth;
        }
        if (depth == 0) return;
        n = n->next;
    }
}

XmlDoc checked(xmlDoc* doc, const std::string& what, const char* kind) {
    if (!doc) {
        const xmlError* e = xmlGetLastError();
        std::string why = e && e->message ? e->message : "unreadable";
        while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
        throw Error(what + " is not well-formed " + kind + " (" + why + ")");
    }
    XmlDoc owned(doc);
    if (doc->intSubset && doc->intSubset->entities)
        throw Error(what + " declares XML entities; snapdoc does not expand them (a document never needs them)");
    const xmlNode* root = xmlDocGetRootElement(doc);
    if (!root) throw Error(what + " has no root element");
    check_depth(root, what);
    return owned;
}

int checked_size(std::string_view bytes, const std::string& what) {
    if (bytes.size() > static_cast<std::size_t>(INT_MAX)) throw Error(what + " is too large to parse");
    return static_cast<int>(bytes.size());
}

}  // namespace

XmlDoc parse_xml(std::string_view bytes, const std::string& what) {
    xmlResetLastError();
    // Not XML_PARSE_NOENT (it would substitute entities: XXE), not XML_PARSE_DTDLOAD, not
    // XML_PARSE_HUGE (which lifts libxml2's own depth and size limits).
    const int options = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA;
    return checked(xmlReadMemory(bytes.data(), checked_size(bytes, what), nullptr, nullptr, options), what, "XML");
}

bool is_element(const xmlNode* n, const char* local_name) {
    return n && n->type == XML_ELEMENT_NODE && n->name &&
           std::strcmp(reinterpret_cast<const char*>(n->name), local_name) == 0;
}

std::string attribute(const xmlNode* n, const char* local_name) {
    if (!n || n->type != XML_ELEMENT_NODE) return {};
    for (const xmlAttr* a = n->properties; a; a = a->next)
        if (a->name && std::strcmp(reinterpret_cast<const char*>(a->name), local_name) == 0) {
            xmlChar* v = xmlNodeListGetString(n->doc, a->children, 1);
            std::string out = v ? reinterpret_cast<const char*>(v) : "";
            xmlFree(v);
            return out;
        }
    return {};
}

const xmlNode* first_child(const xmlNode* n, const char* local_name) {
    for (const xmlNode* c = n ? n->children : nullptr; c; c = c->next)
        if (is_element(c, local_name)) return c;
    return nullptr;
}

const xmlNode* find_descendant(const xmlNode* n, const char* local_name) {
    for (const xmlNode* c = n ? n->children : nullptr; c; c = c->next) {
        if (is_element(c, local_name)) return c;
        if (const xmlNode* d = find_descendant(c, local_name)) return d;  // depth capped at parse
    }
    return nullptr;
}

std::string text_content(const xmlNode* n) {
    std::string out;
    for (const xmlNode* c = n ? n->children : nullptr; c; c = c->next) {
        if (c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) {
            if (c->content) out += reinterpret_cast<const char*>(c->content);
        } else if (c->type == XML_ELEMENT_NODE) {
            out += text_content(c);
        }
    }
    return out;
}

}  // namespace snapdoc::documents
