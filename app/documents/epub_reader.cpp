// EPUB 2 and 3: META-INF/container.xml names the package (OPF); its spine lists the chapters'
// XHTML in reading order, each read by the HTML5 path web pages take (html_page.h: gumbo, so a
// malformed chapter still reads). A chapter without a heading of its
// own gets its <title> as one, so chapters stay apart in the text.
#include <map>

#include "app/documents/format_readers.h"
#include "app/documents/safe_xml.h"
#include "app/documents/structured_text.h"
#include "app/documents/html_page.h"
#include "app/documents/zip_archive.h"
#include "engine/common/error.h"

namespace snapdoc::documents {

namespace {

inline constexpr std::size_t kMaxChapters = 5000;

std::string package_path(ZipArchive& zip, const std::string& what) {
    if (!zip.contains("META-INF/container.xml"))
        throw Error(what + " has no META-INF/container.xml: it is not an EPUB (or it is damaged)");
    if (zip.contains("META-INF/encryption.xml"))
        throw Error(what + " is encrypted (DRM); snapdoc reads only EPUBs without DRM");
    const XmlDoc doc = parse_xml(zip.read("META-INF/container.xml"), what + ": META-INF/container.xml");
    const std::string path = attribute(find_descendant(xmlDocGetRootElement(doc.get()), "rootfile"), "full-path");
    if (path.empty()) throw Error(what + ": META-INF/container.xml names no package (rootfile)");
    return path;
}

}  // namespace

ExtractedDocument read_epub(std::string_view epub, const std::string& what) {
    ZipArchive zip(epub, what);
    const std::string opf_path = package_path(zip, what);
    const XmlDoc opf = parse_xml(zip.read(opf_path), what + ": " + opf_path);
    const xmlNode* package = xmlDocGetRootElement(opf.get());
    const std::string base = opf_path.find('/') == std::string::npos ? "" : opf_path.substr(0, opf_path.rfind('/') + 1);

    std::map<std::string, std::pair<std::string, std::string>> manifest;  // id -> (href, media-type)
    for (const xmlNode* item = first_child(first_child(package, "manifest"), "item"); item; item = item->next)
        if (is_element(item, "item")) manifest[attribute(item, "id")] = {attribute(item, "href"), attribute(item, "media-type")};
    const xmlNode* spine = first_child(package, "spine");
    if (!spine) throw Error(what + ": the package " + opf_path + " has no spine (no reading order)");

    StructuredText out;
    std::size_t chapters = 0;
    for (const xmlNode* ref = spine->children; ref; ref = ref->next) {
        if (!is_element(ref, "itemref")) continue;
        if (++chapters > kMaxChapters)
            throw Error(what + " has more than " + std::to_string(kMaxChapters) + " chapters in its spine");
        const auto item = manifest.find(attribute(ref, "idref"));
        if (item == manifest.end())
            throw Error(what + ": the spine names '" + attribute(ref, "idref") + "', which the manifest does not list");
        const auto& [href, media_type] = item->second;
        if (media_type != "application/xhtml+xml" && media_type != "text/html") continue;  // e.g. an SVG page
        const auto path = resolve_archive_path(base, href);
        if (!path) throw Error(what + ": the chapter '" + href + "' points outside the archive");
        const std::string bytes = zip.read(*path);
        // EPUB's XHTML is UTF-8 or UTF-16 by the standard: anything else is refused, not mojibake.
        const HtmlPage chapter(bytes, what + ": " + *path, HtmlPage::Markup::Xhtml);
        if (!chapter.has_heading()) out.heading(1, chapter.title());
        chapter.append_blocks(out);
    }
    const xmlNode* metadata = first_child(package, "metadata");
    return out.finish_document("epub", collapse_whitespace(text_content(find_descendant(metadata, "title"))));
}

}  // namespace snapdoc::documents
