// Haystacks of real text: documents assembled at run time from texts a Debian system ships (licences,
// package copyright files, Python's standard library), with facts in the demo model's sentence form
// inserted at chosen depths. The demo model's contract is its fact sentence and its question; this
// checks that everything around them may be arbitrary text. Nothing of these texts is committed: a
// machine without them gets fewer sources, and none at all means the caller skips.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "app/eval/haystack.h"

namespace snapdoc::eval {

// The paragraphs (blank-line separated, trimmed) of one source file.
struct TextSource {
    std::filesystem::path path;
    std::vector<std::string> paragraphs;
};

// `path`'s paragraphs: split at blank lines, trimmed, paragraphs over 1500 bytes cut at line ends,
// empty ones and those containing "Question:" (the engine's question prefix, which the demo model
// takes as the start of the question) left out. An unreadable file has none.
TextSource read_text_source(const std::filesystem::path& path);

// The same for a text already read (a decompressed changelog, a man page rendered as text): `text`'s
// paragraphs, split, cut and filtered as read_text_source does, named `path`.
TextSource text_source(const std::filesystem::path& path, const std::string& text);

// The sources present on this machine, in a fixed order: /usr/share/common-licenses/* (legal prose),
// /usr/share/doc/*/copyright (up to `max_copyright` of them, spread over the names) and /usr/lib/python3*/*.py (code,
// up to `max_python`, spread likewise), each read with read_text_source; files without paragraphs are left out.
std::vector<TextSource> debian_text_sources(int max_copyright = 60, int max_python = 40);

// About `target_tokens` of the sources' paragraphs — runs of 8 to 40 consecutive paragraphs of one
// source after another, chosen by `rng` — with `facts[i]`'s sentence as a paragraph of its own at
// `depths[i]` (the fraction of paragraphs before it). Throws Error when `sources` hold no text.
Document real_text_document(Rng& rng, const std::vector<TextSource>& sources, int target_tokens,
                            const TokenCounter& count, const std::vector<Fact>& facts,
                            const std::vector<double>& depths);

}  // namespace snapdoc::eval
